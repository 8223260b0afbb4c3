import { useFetcher } from "react-router";
import type { AccessRequestView } from "../../access/access-request-schemas";
import { useFormat } from "../../components/format";
import { Button } from "../../components/ui/button";
import { Card, emptyStateClass, FormError } from "../../components/ui/card";
import { labelClass, Textarea } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

/** Requests, newest first; with `decide`, each with its approve and deny forms. */
export function RequestList({
  title,
  requests,
  decide = false,
  empty,
}: {
  title: string;
  requests: AccessRequestView[];
  decide?: boolean;
  empty?: string;
}) {
  const { t } = useTranslation();
  return (
    <Card title={title}>
      {requests.length === 0 ? (
        <p className={emptyStateClass}>{empty}</p>
      ) : (
        <ul className="divide-y divide-border">
          {requests.map((r) => (
            <li key={r.id} id={`request-${r.id}`} className="scroll-mt-20 py-3">
              <RequestSummary request={r} />
              {decide ? <DecideForms request={r} /> : null}
            </li>
          ))}
        </ul>
      )}
      <span className="sr-only">{t("access:requests.count", { count: requests.length })}</span>
    </Card>
  );
}

function RequestSummary({ request: r }: { request: AccessRequestView }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  return (
    <div className="flex flex-col gap-1 text-sm">
      <p>
        <span className="font-medium">{r.user.name}</span>{" "}
        {r.team
          ? t("access:requests.asksInTeam", { role: r.role.label, team: r.team.name, hours: r.hours })
          : t("access:requests.asks", { role: r.role.label, hours: r.hours })}
      </p>
      <p className="text-muted-foreground">“{r.reason}”</p>
      <p className="text-muted-foreground">
        <span className="font-medium text-foreground">{t(`access:requests.status.${r.status}`)}</span>
        {" · "}
        {r.status === "pending"
          ? t("access:requests.until", { when: formatDateTime(r.expiresAt) })
          : r.decidedBy
            ? t("access:requests.decidedBy", {
                name: r.decidedBy.name,
                when: formatDateTime(r.decidedAt ?? ""),
              })
            : t("access:requests.asked", { when: formatDateTime(r.createdAt) })}
        {r.comment ? ` · “${r.comment}”` : ""}
      </p>
    </div>
  );
}

function DecideForms({ request: r }: { request: AccessRequestView }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  const answer = fetcher.data;
  const errors = (answer && "errors" in answer ? answer.errors : {}) as Record<string, string>;
  const commentId = `comment-${r.id}`;
  return (
    <fetcher.Form method="post" className="mt-2 flex flex-col gap-2">
      <input type="hidden" name="request" value={r.id} />
      <div>
        <label htmlFor={commentId} className={labelClass}>
          {t("access:requests.comment")}
        </label>
        <Textarea
          id={commentId}
          name="comment"
          rows={1}
          maxLength={500}
          aria-invalid={errors.comment ? true : undefined}
          aria-describedby={`${commentId}-hint`}
        />
        <p id={`${commentId}-hint`} className="mt-1 text-sm text-muted-foreground">
          {errors.comment ?? t("access:requests.commentHint")}
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        <Button
          name="intent"
          value="approve"
          pending={fetcher.state !== "idle" && fetcher.formData?.get("intent") === "approve"}
        >
          {t("access:requests.approve", { name: r.user.name })}
        </Button>
        <Button
          name="intent"
          value="deny"
          variant="outline"
          pending={fetcher.state !== "idle" && fetcher.formData?.get("intent") === "deny"}
        >
          {t("access:requests.deny", { name: r.user.name })}
        </Button>
      </div>
      <FormError message={answer && "formError" in answer ? answer.formError : null} />
    </fetcher.Form>
  );
}

import { useEffect, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import { requirePermission } from "../auth/guard.server";
import { handleAction } from "../auth/intents.server";
import { useFormat } from "../components/format";
import { FormErrors, SelectField, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { LevelBadge } from "../components/notifications/level-badge";
import { pageTitle } from "../components/page-title";
import { ConfirmDialog } from "../components/ui/alert-dialog";
import { Button } from "../components/ui/button";
import { Card } from "../components/ui/card";
import { errorTextClass, labelClass, Textarea } from "../components/ui/field";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../components/ui/table";
import { db } from "../db.server";
import { redirectWithToast, refused } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { parseSubmission } from "../http/submission";
import { getT } from "../i18n/i18n.server";
import { intlLocale } from "../i18n/options";
import { useTranslation } from "../i18n/use-translation";
import { countAudience } from "../notifications/audience.server";
import { broadcastHistory, sendBroadcast } from "../notifications/broadcast.server";
import {
  AUDIENCE_KINDS,
  audienceOf,
  audienceSchema,
  broadcastFormSchema,
  toBroadcastInput,
} from "../notifications/broadcast-schema";
import { NOTICE_LEVELS } from "../notifications/levels";
import { createTask } from "../tasks/create-task.server";
import type { Route } from "./+types/dashboard.broadcast";

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "settings.manage");
  // `audience` (+ roleIds/teamIds) asks how many people it reaches: the composer's confirmation.
  const params = new URL(args.request.url).searchParams;
  const asked = params.has("audience")
    ? audienceSchema.safeParse(
        audienceOf({
          audience: params.get("audience") ?? "",
          roleIds: params.getAll("roleIds"),
          teamIds: params.getAll("teamIds"),
        }),
      )
    : null;
  // The teams to choose from only when the composer asks (`?teams`, once "Teams" is picked): a view
  // of the page does not carry every team (docs/decisions/016-maintained-counts.md).
  const [grants, teams, history, audienceSize] = await Promise.all([
    roleGrants(),
    params.has("teams") ? db().selectFrom("team").select(["id", "name"]).orderBy("name").execute() : null,
    broadcastHistory(),
    asked?.success ? countAudience(asked.data) : null,
  ]);
  return {
    roles: [...grants.values()].map((r) => ({
      id: r.id,
      name: r.name,
      label: r.label,
      translations: r.translations,
    })),
    teams,
    history,
    audienceSize,
  };
}

// A 429's Retry-After reaches the browser only through this export (actionError maps every failure).
export const headers = passRetryAfter;

// One form; its failures answer as "send".
export const action = (args: Route.ActionArgs) => {
  // The answers are shown as written: translated here, in the request's language.
  const t = getT(args.context);
  return handleAction(
    args,
    "send",
    {
      schema: broadcastFormSchema,
      run: async ({ actor, input }) => {
        const { id, recipients } = await sendBroadcast(actor, toBroadcastInput(input), args);
        if (recipients === 0) return refused(t, "broadcast.nobody", 400, "send");
        let note = "";
        if (input.email) {
          const task = await createTask(actor, { type: "broadcast.email", payload: { broadcastId: id } });
          note = task.ok
            ? t("broadcast:toast.emailsQueued")
            : task.status === "too_many_tasks"
              ? t("broadcast:toast.tooManyTasks", { count: task.limit })
              : t("broadcast:toast.emailsNotQueued");
        }
        return redirectWithToast("/dashboard/broadcast", {
          kind: "success",
          message: `${t("broadcast:toast.sent", { count: recipients })}${note ? ` ${note}` : ""}`,
        });
      },
    },
    { permission: "settings.manage" },
  );
};

export default function Broadcast({ loaderData }: Route.ComponentProps) {
  const { history } = loaderData;
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const emailStatus: Record<string, string> = {
    pending: t("broadcast:emailStatus.pending"),
    sending: t("broadcast:emailStatus.sending"),
    done: t("broadcast:emailStatus.done"),
    failed: t("broadcast:emailStatus.failed"),
  };
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <h1 className="text-2xl font-semibold">{t("broadcast:title")}</h1>
      <Composer roles={loaderData.roles} />
      <Card title={t("broadcast:history.title")}>
        <Table caption={t("broadcast:history.caption")}>
          <TableHead>
            <TableHeader>{t("broadcast:history.sent")}</TableHeader>
            <TableHeader>{t("broadcast:history.titleColumn")}</TableHeader>
            <TableHeader>{t("broadcast:history.level")}</TableHeader>
            <TableHeader>{t("broadcast:history.audience")}</TableHeader>
            <TableHeader align="right">{t("broadcast:history.recipients")}</TableHeader>
            <TableHeader align="right">{t("broadcast:history.read")}</TableHeader>
            <TableHeader>{t("broadcast:history.email")}</TableHeader>
          </TableHead>
          <TableBody>
            {history.length === 0 ? (
              <TableEmpty colSpan={7}>{t("broadcast:history.empty")}</TableEmpty>
            ) : (
              history.map((b) => (
                <TableRow key={b.id}>
                  <TableCell className="whitespace-nowrap">{formatDateTime(b.created_at)}</TableCell>
                  <TableCell>{b.title}</TableCell>
                  <TableCell>
                    <LevelBadge level={b.level} />
                  </TableCell>
                  <TableCell>{b.audience}</TableCell>
                  <TableCell align="right">{b.recipient_count}</TableCell>
                  <TableCell align="right">{b.reads}</TableCell>
                  <TableCell>
                    {b.email_status === "none"
                      ? "—"
                      : t(b.emails_failed ? "broadcast:history.emailFailed" : "broadcast:history.emailSent", {
                          status: emailStatus[b.email_status] ?? b.email_status,
                          sent: b.emails_sent,
                          failed: b.emails_failed,
                        })}
                  </TableCell>
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
      </Card>
    </div>
  );
}

type Choice = { id: string; name: string; label: string };

function Composer({ roles }: { roles: Choice[] }) {
  const { t, i18n } = useTranslation();
  const [form, fields] = useAppForm({
    schema: broadcastFormSchema,
    id: "broadcast",
    intent: "send",
    defaultValue: { level: "info", audience: "all" },
  });
  const sending = useIsPending({ intent: "send" });
  const size = useFetcher<typeof loader>();
  const [confirming, setConfirming] = useState(false);
  const [asked, setAsked] = useState<{ query: string; name: string; email: boolean } | null>(null);
  const kind = (fields.audience.value as string | undefined) ?? "all";
  // The teams are fetched once "Teams" is picked.
  const teamChoices = useFetcher<typeof loader>();
  const loadTeams = teamChoices.load;
  const teamsAsked = useRef(false);
  useEffect(() => {
    if (kind !== "teams" || teamsAsked.current) return;
    teamsAsked.current = true;
    loadTeams("/dashboard/broadcast?teams");
  }, [kind, loadTeams]);
  const teams = teamChoices.data?.teams ?? [];

  /** Opens the confirmation once the fields are valid; otherwise conform shows what is wrong. */
  function review(event: React.MouseEvent) {
    event.preventDefault();
    const element = document.getElementById(form.id);
    if (!(element instanceof HTMLFormElement)) return;
    const data = new FormData(element);
    const parsed = parseSubmission(data, broadcastFormSchema, t);
    if (parsed.status !== "success" || !parsed.value) {
      // A submit that conform stops: it shows the errors; focus goes to the first field to fix.
      element.requestSubmit();
      requestAnimationFrame(() => element.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    const audience = audienceOf(parsed.value);
    const query = new URLSearchParams({ audience: audience.kind });
    if (audience.kind !== "all")
      for (const id of audience.ids) query.append(audience.kind === "roles" ? "roleIds" : "teamIds", id);
    const names =
      audience.kind === "roles"
        ? roles.filter((r) => audience.ids.includes(r.id)).map((r) => roleLabel(t, r))
        : audience.kind === "teams"
          ? teams.filter((team) => audience.ids.includes(team.id)).map((team) => team.name)
          : [];
    const list = names.join(", ");
    const name =
      audience.kind === "all"
        ? t("broadcast:confirm.everyone")
        : audience.kind === "roles"
          ? t("broadcast:confirm.roles", { count: names.length, names: list })
          : t("broadcast:confirm.teams", { count: names.length, names: list });
    setAsked({ query: query.toString(), name, email: parsed.value.email === true });
    size.load(`/dashboard/broadcast?${query}`);
    setConfirming(true);
  }

  const count = asked && size.state === "idle" ? size.data?.audienceSize : undefined;
  const format = (n: number) => n.toLocaleString(intlLocale(i18n.language));
  const people = !count
    ? t("broadcast:confirm.counting")
    : count.reached === count.members
      ? t("broadcast:confirm.people", { count: count.reached, formatted: format(count.reached) })
      : t("broadcast:confirm.peopleOf", {
          count: count.members,
          reached: format(count.reached),
          formatted: format(count.members),
        });
  // Why the others get nothing: said, not left to guess (issue 36).
  const leftOut = count
    ? [
        count.unverified
          ? t("broadcast:confirm.unverified", {
              count: count.unverified,
              formatted: format(count.unverified),
            })
          : null,
        count.disabled
          ? t("broadcast:confirm.disabled", { count: count.disabled, formatted: format(count.disabled) })
          : null,
      ].filter((x) => x !== null)
    : [];
  const title = asked
    ? t(asked.email ? "broadcast:confirm.titleEmail" : "broadcast:confirm.title", {
        name: asked.name,
        people,
      })
    : "";

  return (
    <Card title={t("broadcast:compose.title")}>
      <Form method="post" className="flex flex-col gap-3" {...getFormProps(form)}>
        <TextField meta={fields.title} label={t("broadcast:compose.titleField")} />
        <div>
          <label htmlFor={fields.message.id} className={labelClass}>
            {t("broadcast:compose.message")}
          </label>
          <Textarea
            key={fields.message.key}
            id={fields.message.id}
            name={fields.message.name}
            defaultValue={fields.message.initialValue as string | undefined}
            required
            maxLength={2000}
            rows={4}
            aria-invalid={fields.message.errors ? true : undefined}
            aria-describedby={fields.message.errors ? fields.message.errorId : undefined}
          />
          {fields.message.errors ? (
            <p id={fields.message.errorId} className={errorTextClass}>
              {fields.message.errors[0]}
            </p>
          ) : null}
        </div>
        <div className="grid gap-3 sm:grid-cols-2">
          <SelectField meta={fields.level} label={t("broadcast:compose.level")}>
            {NOTICE_LEVELS.map((l) => (
              <option key={l} value={l}>
                {t(`broadcast:level.${l}`)}
              </option>
            ))}
          </SelectField>
          <TextField
            meta={fields.link}
            label={t("broadcast:compose.link")}
            description={t("broadcast:compose.linkHelp")}
            placeholder="/dashboard/settings"
          />
        </div>
        <fieldset aria-describedby={fields.audience.errors ? fields.audience.errorId : undefined}>
          <legend className="text-sm font-medium text-foreground">{t("broadcast:compose.audience")}</legend>
          <div className="mt-1 flex gap-4 text-sm">
            {AUDIENCE_KINDS.map((k) => (
              <label key={k} className="flex items-center gap-1">
                <input
                  type="radio"
                  name={fields.audience.name}
                  value={k}
                  defaultChecked={k === "all"}
                  className="accent-primary"
                />
                {k === "all"
                  ? t("broadcast:compose.all")
                  : k === "roles"
                    ? t("broadcast:compose.roles")
                    : t("broadcast:compose.teams")}
              </label>
            ))}
          </div>
          {kind === "roles" ? (
            <div className="mt-2 flex flex-wrap gap-3 text-sm">
              {roles.map((r) => (
                <label key={r.id} className="flex items-center gap-1">
                  <input type="checkbox" name={fields.roleIds.name} value={r.id} className="accent-primary" />{" "}
                  {roleLabel(t, r)}
                </label>
              ))}
            </div>
          ) : null}
          {kind === "teams" ? (
            <div className="mt-2 flex flex-wrap gap-3 text-sm">
              {!teamChoices.data ? (
                <span role="status">{t("broadcast:compose.loadingTeams")}</span>
              ) : teams.length === 0 ? (
                <span>{t("broadcast:compose.noTeams")}</span>
              ) : null}
              {teams.map((team) => (
                <label key={team.id} className="flex items-center gap-1">
                  <input
                    type="checkbox"
                    name={fields.teamIds.name}
                    value={team.id}
                    className="accent-primary"
                  />{" "}
                  {team.name}
                </label>
              ))}
            </div>
          ) : null}
          {/* The line is always there: an error coming or going as the role boxes lose focus must not
              move "Send notice" between a click's press and release. */}
          <p id={fields.audience.errorId} className="mt-1 min-h-5 text-sm text-destructive">
            {fields.audience.errors?.[0] ?? null}
          </p>
        </fieldset>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name={fields.email.name} className="accent-primary" />{" "}
          {t("broadcast:compose.alsoEmail")}
        </label>
        <FormErrors form={form} />
        <div>
          <ConfirmDialog
            open={confirming}
            onOpenChange={setConfirming}
            trigger={
              <Button type="button" pending={sending} onClick={review}>
                {t("broadcast:compose.send")}
              </Button>
            }
            title={title}
            description={[
              leftOut.length ? t("broadcast:confirm.leftOut", { reasons: leftOut.join(", ") }) : null,
              asked?.email ? t("broadcast:confirm.descriptionEmail") : t("broadcast:confirm.description"),
            ]
              .filter(Boolean)
              .join(" ")}
            actionLabel={t("broadcast:compose.send")}
            variant="default"
            formId={form.id}
            value="send"
          />
        </div>
      </Form>
    </Card>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "broadcast");

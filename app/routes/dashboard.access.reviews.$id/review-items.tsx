import { useFetcher } from "react-router";
import type { ReviewItemView, ReviewView } from "../../access/access-review-schemas";
import { useFormat } from "../../components/format";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import {
  SelectAllHeader,
  SelectRowCell,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
  useRowSelection,
} from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

/**
 * The review's items. Those the reader may decide have a box to tick and their own Keep and
 * Revoke; the ticked ones are kept or revoked together. One's own grants have neither.
 */
export function ReviewItems({ review }: { review: ReviewView }) {
  const { t } = useTranslation();
  const decidable = review.items.filter((i) => i.mayDecide).map((i) => i.id);
  const selection = useRowSelection(decidable);
  const fetcher = useFetcher<typeof action>();
  const answer = fetcher.data && fetcher.data.intent === "decide" ? fetcher.data : undefined;
  const busy = fetcher.state !== "idle";
  // aria-disabled, not disabled: a button in use keeps the focus while the page answers.
  const decide = (decision: "keep" | "revoke", items: string[]) => {
    if (busy || items.length === 0) return;
    const form = new FormData();
    form.set("intent", "decide");
    form.set("review", review.id);
    form.set("decision", decision);
    for (const id of items) form.append("items", id);
    void fetcher.submit(form, { method: "post" });
    if (items.length > 1) selection.clear();
  };
  const open = review.status === "open";
  return (
    <Card title={t("access:reviews.items", { count: review.items.length })}>
      <div className="flex flex-col gap-3">
        {open && decidable.length ? (
          <div
            className="flex flex-wrap items-center gap-2"
            role="group"
            aria-label={t("access:reviews.bulk")}
          >
            <span className="text-sm text-muted-foreground">
              {t("access:reviews.ticked", { count: selection.selected.length })}
            </span>
            <Button
              type="button"
              variant="outline"
              aria-disabled={selection.selected.length === 0 || busy || undefined}
              onClick={() => decide("keep", selection.selected)}
            >
              {t("access:reviews.keepTicked")}
            </Button>
            <Button
              type="button"
              variant="outline"
              aria-disabled={selection.selected.length === 0 || busy || undefined}
              onClick={() => decide("revoke", selection.selected)}
            >
              {t("access:reviews.revokeTicked")}
            </Button>
          </div>
        ) : null}
        <p role="status" aria-live="polite" className="text-sm" data-testid="decide-status">
          {answer?.ok ? answer.message : ""}
        </p>
        <FormError message={answer && !answer.ok ? answer.formError : null} />
        <Table caption={t("access:reviews.itemsCaption")}>
          <TableHead>
            {open && decidable.length ? (
              <SelectAllHeader selection={selection} label={t("access:reviews.tickAll")} />
            ) : null}
            <TableHeader>{t("access:reviews.person")}</TableHeader>
            <TableHeader>{t("access:reviews.grant")}</TableHeader>
            <TableHeader>{t("access:reviews.lastUsed")}</TableHeader>
            <TableHeader>{t("access:reviews.decision")}</TableHeader>
            {open ? <TableHeader>{t("access:reviews.act")}</TableHeader> : null}
          </TableHead>
          <TableBody>
            {review.items.map((item) => (
              <ItemRow
                key={item.id}
                item={item}
                open={open}
                tickable={open && decidable.length > 0}
                selection={selection}
                busy={busy}
                onDecide={(decision) => decide(decision, [item.id])}
              />
            ))}
          </TableBody>
        </Table>
      </div>
    </Card>
  );
}

function ItemRow({
  item,
  open,
  tickable,
  selection,
  busy,
  onDecide,
}: {
  item: ReviewItemView;
  open: boolean;
  tickable: boolean;
  selection: ReturnType<typeof useRowSelection>;
  busy: boolean;
  onDecide(decision: "keep" | "revoke"): void;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const who = item.user.name || item.user.email;
  return (
    <TableRow>
      {tickable ? (
        item.mayDecide ? (
          <SelectRowCell selection={selection} id={item.id} label={t("access:reviews.tick", { name: who })} />
        ) : (
          <TableCell> </TableCell>
        )
      ) : null}
      <TableCell>
        <span className="font-medium">{item.user.name}</span>
        <span className="block text-muted-foreground">{item.user.email}</span>
      </TableCell>
      <TableCell>
        {item.team
          ? t("access:reviews.roleInTeam", { role: item.role.label, team: item.team.name })
          : item.role.label}
        <span className="block text-muted-foreground">
          {item.grantedAt
            ? t("access:reviews.grantedOn", {
                when: formatDateTime(item.grantedAt),
                by: item.grantedBy?.name ?? "—",
              })
            : t("access:reviews.grantedUnknown")}
          {item.expiresAt ? ` · ${t("access:reviews.endsOn", { when: formatDateTime(item.expiresAt) })}` : ""}
        </span>
      </TableCell>
      <TableCell>
        {item.lastUsedAt ? formatDateTime(item.lastUsedAt) : t("access:reviews.neverUsed")}
      </TableCell>
      <TableCell>
        {item.decision ? t(`access:reviews.decided.${item.decision}`) : t("access:reviews.undecided")}
        {item.decidedBy ? <span className="block text-muted-foreground">{item.decidedBy.name}</span> : null}
        {item.outcome ? (
          <span className="block text-muted-foreground">{t(`access:reviews.outcome.${item.outcome}`)}</span>
        ) : null}
      </TableCell>
      {open ? (
        <TableCell>
          {item.mayDecide ? (
            <div className="flex flex-wrap gap-2">
              <Button
                type="button"
                variant="outline"
                aria-disabled={busy || undefined}
                onClick={() => onDecide("keep")}
              >
                {t("access:reviews.keep")}
                <span className="sr-only"> {who}</span>
              </Button>
              <Button
                type="button"
                variant="outline"
                aria-disabled={busy || undefined}
                onClick={() => onDecide("revoke")}
              >
                {t("access:reviews.revoke")}
                <span className="sr-only"> {who}</span>
              </Button>
            </div>
          ) : (
            <span className="text-muted-foreground">{t("access:reviews.notYours")}</span>
          )}
        </TableCell>
      ) : null}
    </TableRow>
  );
}

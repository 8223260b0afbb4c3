import { Link } from "react-router";
import { auditActionText } from "../../audit/action-text";
import type { AuditView } from "../../audit/audit-view";
import { useFormat } from "../../components/format";
import { cardClass } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";
import { AuditDetailsView } from "./audit-details";

// The audit log's entries: a table from a tablet up, a card per entry on a phone (the six columns
// would scroll sideways there), both from the same parts so they say the same.

function useEntryText() {
  const { t, i18n } = useTranslation();
  return {
    action: (r: AuditView) => (r.rolesOnly ? t("audit:changedRoles") : auditActionText(t, r.action)),
    actor: (r: AuditView) => {
      const actor = r.actor.name ?? r.actor.email ?? t("audit:table.anonymous");
      return r.impersonator
        ? t("audit:table.actorAs", { impersonator: r.impersonator.name ?? r.impersonator.email, actor })
        : actor;
    },
    // A type from an older release without a translation shows as the loader words it.
    targetType: (target: NonNullable<AuditView["target"]>) => {
      const key = `audit:targetType.${target.typeKey}`;
      return i18n.exists(key) ? t(key) : target.type;
    },
  };
}

function ActorLines({ entry }: { entry: AuditView }) {
  const { t } = useTranslation();
  const text = useEntryText();
  // The name opens that person's whole trail, as actor, target or while viewing as someone else.
  const person = entry.impersonator?.id ?? entry.actor.id;
  return (
    <>
      {person ? (
        <Link
          to={`/dashboard/logs?person=${person}`}
          className={linkVariants({ variant: "quiet" })}
          title={t("audit:table.activityOf", { name: text.actor(entry) })}
        >
          {text.actor(entry)}
        </Link>
      ) : (
        text.actor(entry)
      )}
      {entry.impersonator?.email ? (
        <span className="block text-xs text-muted-foreground">
          {t("audit:table.viewingAs", { email: entry.impersonator.email })}
        </span>
      ) : null}
      {entry.actor.name && entry.actor.email ? (
        <span className="block break-all text-xs text-muted-foreground">{entry.actor.email}</span>
      ) : null}
    </>
  );
}

function TargetLines({ target }: { target: AuditView["target"] }) {
  const text = useEntryText();
  if (!target) return "—";
  return (
    <>
      <span className="block text-xs text-muted-foreground">{text.targetType(target)}</span>
      {target.href ? (
        <Link to={target.href} className={linkVariants()}>
          {target.name}
        </Link>
      ) : (
        <span className="break-all">{target.name ?? target.id ?? ""}</span>
      )}
    </>
  );
}

export function AuditEntries({ rows }: { rows: AuditView[] }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const text = useEntryText();
  return (
    <>
      <Table caption={t("audit:table.caption")} className="hidden md:block">
        <TableHead>
          <TableHeader>{t("audit:table.time")}</TableHeader>
          <TableHeader>{t("audit:table.action")}</TableHeader>
          <TableHeader>{t("audit:table.actor")}</TableHeader>
          <TableHeader>{t("audit:table.target")}</TableHeader>
          <TableHeader>{t("audit:table.ip")}</TableHeader>
          <TableHeader>{t("audit:table.details")}</TableHeader>
        </TableHead>
        <TableBody>
          {rows.length === 0 ? (
            <TableEmpty colSpan={6}>{t("audit:table.empty")}</TableEmpty>
          ) : (
            rows.map((r) => (
              <TableRow key={r.id} data-testid="audit-row" className="align-top">
                <TableCell className="whitespace-nowrap align-top text-muted-foreground">
                  <time dateTime={r.createdAt}>{formatDateTime(r.createdAt)}</time>
                </TableCell>
                <TableCell className="align-top font-medium" title={r.action}>
                  {text.action(r)}
                </TableCell>
                <TableCell className="align-top">
                  <ActorLines entry={r} />
                </TableCell>
                <TableCell className="align-top">
                  <TargetLines target={r.target} />
                </TableCell>
                <TableCell className="whitespace-nowrap align-top">{r.ip ?? "—"}</TableCell>
                <TableCell className="min-w-64 align-top">
                  <AuditDetailsView
                    details={r.details}
                    userAgent={r.userAgent}
                    device={r.device}
                    requestId={r.requestId}
                  />
                </TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>

      <div className="md:hidden">
        {rows.length === 0 ? (
          <p className={cn(cardClass, "p-4 text-sm text-muted-foreground")}>{t("audit:table.empty")}</p>
        ) : (
          <ul aria-label={t("audit:table.caption")} className="flex flex-col gap-2">
            {rows.map((r) => (
              <li
                key={r.id}
                data-testid="audit-card"
                className={cn(cardClass, "flex flex-col gap-1 p-3 text-sm")}
              >
                <div className="flex flex-wrap items-baseline justify-between gap-x-3">
                  <span className="font-medium" title={r.action}>
                    {text.action(r)}
                  </span>
                  <time dateTime={r.createdAt} className="text-xs text-muted-foreground">
                    {formatDateTime(r.createdAt)}
                  </time>
                </div>
                <p>
                  <span className="sr-only">{t("audit:table.actor")}: </span>
                  <ActorLines entry={r} />
                </p>
                {r.target ? (
                  <p>
                    <span className="sr-only">{t("audit:table.target")}: </span>
                    <TargetLines target={r.target} />
                  </p>
                ) : null}
                {r.ip ? (
                  <p className="text-xs text-muted-foreground">
                    {t("audit:table.ip")}: {r.ip}
                  </p>
                ) : null}
                <AuditDetailsView
                  details={r.details}
                  userAgent={r.userAgent}
                  device={r.device}
                  requestId={r.requestId}
                />
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}

import { useEffect, useRef } from "react";
import { Form, Link, useSubmit } from "react-router";
import { auditRowsFor } from "../access/audit-token-names.server";
import { auditActionText } from "../audit/action-text";
import { AUDIT_ACTIONS } from "../audit/actions";
import { listAudit, parseAuditQuery } from "../audit/query.server";
import { describeAuditRows } from "../audit/view.server";
import { requirePermission } from "../auth/guard.server";
import { AuditDetailsView } from "../components/audit/audit-details";
import { useFormat } from "../components/format";
import { pageTitle } from "../components/page-title";
import { ExportAuditButton } from "../components/tasks/export-audit-button";
import { Button } from "../components/ui/button";
import { cn } from "../components/ui/cn";
import { Field } from "../components/ui/field";
import { linkVariants } from "../components/ui/link";
import { Pagination } from "../components/ui/pagination";
import { Select } from "../components/ui/select";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../components/ui/table";
import { pageRefusal } from "../http/form.server";
import { getT } from "../i18n/i18n.server";
import { sayIssue } from "../i18n/message";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/dashboard.logs";

export async function loader(args: Route.LoaderArgs) {
  const viewer = await requirePermission(args, "log.read");
  const parsed = parseAuditQuery(new URL(args.request.url).searchParams);
  if (!parsed.ok) {
    const t = getT(args.context);
    const values = { field: parsed.field, problem: sayIssue(t, parsed.issue) };
    throw pageRefusal(t, { key: "audit.badFilter", values }, 400);
  }
  const { rows, start, prev, next } = await listAudit(parsed.value);
  return {
    query: parsed.value,
    start,
    prev,
    next,
    rows: await describeAuditRows(await auditRowsFor(viewer, rows)),
  };
}

const FILTER_NAMES = ["actor", "action", "target", "from", "to"] as const;
// Typing settles before the list follows, so each keystroke is not a request.
const TYPING_DELAY_MS = 400;

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation();
  const { formatDateTime } = useFormat();
  const { rows, start, prev, next, query } = loaderData;
  // A type from an older release without a translation shows as the loader words it.
  const typeText = (target: { type: string; typeKey: string }) => {
    const key = `audit:targetType.${target.typeKey}`;
    return i18n.exists(key) ? t(key) : target.type;
  };
  const submit = useSubmit();
  const formRef = useRef<HTMLFormElement>(null);
  const typing = useRef<ReturnType<typeof setTimeout>>(undefined);
  const filtered = FILTER_NAMES.some((name) => query[name]);

  // The fields show what the list applies (after Clear filters, back/forward), except the one
  // being typed in.
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    for (const name of FILTER_NAMES) {
      const field = form.elements.namedItem(name);
      if (
        (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) &&
        field !== document.activeElement
      )
        field.value = query[name];
    }
  }, [query]);
  useEffect(() => () => clearTimeout(typing.current), []);

  const apply = (form: HTMLFormElement) => {
    clearTimeout(typing.current);
    submit(form, { replace: true, preventScrollReset: true });
  };

  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold">{t("audit:title")}</h1>
      <Form
        method="get"
        ref={formRef}
        className="flex flex-wrap items-end gap-3"
        aria-label={t("audit:filter.label")}
        onChange={(event) => {
          const form = event.currentTarget;
          const typed = event.target instanceof HTMLInputElement && event.target.type === "text";
          clearTimeout(typing.current);
          if (typed) typing.current = setTimeout(() => apply(form), TYPING_DELAY_MS);
          else apply(form);
        }}
        onSubmit={() => clearTimeout(typing.current)}
      >
        <Field
          label={t("audit:filter.actor")}
          name="actor"
          type="text"
          defaultValue={query.actor}
          className="w-56"
        />
        <Select label={t("audit:filter.action")} name="action" defaultValue={query.action}>
          <option value="">{t("audit:filter.anyAction")}</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {auditActionText(t, a)}
            </option>
          ))}
        </Select>
        <Field
          label={t("audit:filter.target")}
          name="target"
          type="text"
          defaultValue={query.target}
          className="w-56"
        />
        <Field label={t("audit:filter.from")} name="from" type="date" defaultValue={query.from} />
        <Field label={t("audit:filter.to")} name="to" type="date" defaultValue={query.to} />
        <input type="hidden" name="size" value={query.size} />
        <Button variant="secondary">{t("audit:filter.submit")}</Button>
        <ExportAuditButton />
        <ExportAuditButton format="jsonl" />
        {filtered ? (
          <Link to={`?size=${query.size}`} replace className={cn(linkVariants(), "self-center text-sm")}>
            {t("audit:filter.clear")}
          </Link>
        ) : null}
      </Form>

      <Table caption={t("audit:table.caption")} scrollable>
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
                  {r.rolesOnly ? t("audit:changedRoles") : auditActionText(t, r.action)}
                </TableCell>
                <TableCell className="align-top">
                  {r.impersonator
                    ? t("audit:table.actorAs", {
                        impersonator: r.impersonator.name ?? r.impersonator.email,
                        actor: r.actor.name ?? r.actor.email ?? t("audit:table.anonymous"),
                      })
                    : (r.actor.name ?? r.actor.email ?? t("audit:table.anonymous"))}
                  {r.impersonator?.email ? (
                    <span className="block text-xs text-muted-foreground">
                      {t("audit:table.viewingAs", { email: r.impersonator.email })}
                    </span>
                  ) : null}
                  {r.actor.name && r.actor.email ? (
                    <span className="block text-xs text-muted-foreground">{r.actor.email}</span>
                  ) : null}
                </TableCell>
                <TableCell className="align-top">
                  {r.target ? (
                    <>
                      <span className="block text-xs text-muted-foreground">{typeText(r.target)}</span>
                      {r.target.href ? (
                        <Link to={r.target.href} className={linkVariants()}>
                          {r.target.name}
                        </Link>
                      ) : (
                        <span className="break-all">{r.target.name ?? r.target.id ?? ""}</span>
                      )}
                    </>
                  ) : (
                    "—"
                  )}
                </TableCell>
                <TableCell className="whitespace-nowrap align-top">{r.ip ?? "—"}</TableCell>
                <TableCell className="min-w-64 align-top">
                  <AuditDetailsView details={r.details} userAgent={r.userAgent} requestId={r.requestId} />
                </TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      <Pagination
        label={t("audit:pages.label")}
        noun={t("audit:pages.noun")}
        start={start}
        shown={rows.length}
        prev={prev}
        next={next}
        prevLabel={t("audit:pages.newer")}
        nextLabel={t("audit:pages.older")}
      />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "auditLog");

import { useEffect, useRef } from "react";
import { data, Form, Link, useSubmit } from "react-router";
import { requirePermission } from "../access/guard.server";
import { ACTION_LABELS, AUDIT_ACTIONS } from "../audit/actions";
import { listAudit, parseAuditQuery } from "../audit/query.server";
import { describeAuditRows } from "../audit/view.server";
import { AuditDetailsView } from "../components/audit/audit-details";
import { useFormat } from "../components/format";
import { pageTitle } from "../components/page-title";
import { ExportAuditButton } from "../components/tasks/export-audit-button";
import { Button } from "../components/ui/button";
import { Field } from "../components/ui/field";
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
import type { Route } from "./+types/dashboard.logs";

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "log.read");
  const parsed = parseAuditQuery(new URL(args.request.url).searchParams);
  if (!parsed.ok) throw data({ message: `Bad filter. ${parsed.message}` }, { status: 400 });
  const { rows, start, prev, next } = await listAudit(parsed.value);
  return { query: parsed.value, start, prev, next, rows: await describeAuditRows(rows) };
}

const FILTER_NAMES = ["actor", "action", "target", "from", "to"] as const;
// Typing settles before the list follows, so each keystroke is not a request.
const TYPING_DELAY_MS = 400;

const linkClass =
  "rounded text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 dark:text-indigo-300";

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { formatDateTime } = useFormat();
  const { rows, start, prev, next, query } = loaderData;
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
      <h1 className="text-2xl font-semibold">Audit log</h1>
      <Form
        method="get"
        ref={formRef}
        className="flex flex-wrap items-end gap-3"
        aria-label="Filter the audit log"
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
          label="Actor (name or email contains)"
          name="actor"
          type="text"
          defaultValue={query.actor}
          className="w-56"
        />
        <Select label="Action" name="action" defaultValue={query.action}>
          <option value="">Any action</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {ACTION_LABELS[a]}
            </option>
          ))}
        </Select>
        <Field
          label="Target (name contains)"
          name="target"
          type="text"
          defaultValue={query.target}
          className="w-56"
        />
        <Field label="From" name="from" type="date" defaultValue={query.from} />
        <Field label="To" name="to" type="date" defaultValue={query.to} />
        <input type="hidden" name="size" value={query.size} />
        <Button variant="secondary">Filter</Button>
        <ExportAuditButton />
        {filtered ? (
          <Link to={`?size=${query.size}`} replace className={`${linkClass} self-center text-sm`}>
            Clear filters
          </Link>
        ) : null}
      </Form>

      <Table caption="Audit entries, newest first" scrollable>
        <TableHead>
          <TableHeader>Time</TableHeader>
          <TableHeader>Action</TableHeader>
          <TableHeader>Actor</TableHeader>
          <TableHeader>Target</TableHeader>
          <TableHeader>IP address</TableHeader>
          <TableHeader>Details</TableHeader>
        </TableHead>
        <TableBody>
          {rows.length === 0 ? (
            <TableEmpty colSpan={6}>No audit entries match these filters.</TableEmpty>
          ) : (
            rows.map((r) => (
              <TableRow key={r.id} data-testid="audit-row" className="align-top">
                <TableCell className="whitespace-nowrap align-top text-slate-700 dark:text-slate-300">
                  <time dateTime={r.createdAt}>{formatDateTime(r.createdAt)}</time>
                </TableCell>
                <TableCell className="align-top font-medium" title={r.action}>
                  {r.actionLabel}
                </TableCell>
                <TableCell className="align-top">
                  {r.impersonator ? `${r.impersonator.name ?? r.impersonator.email} (as ` : null}
                  {r.actor.name ?? r.actor.email ?? "Anonymous"}
                  {r.impersonator ? ")" : null}
                  {r.impersonator?.email ? (
                    <span className="block text-xs text-slate-700 dark:text-slate-300">
                      {r.impersonator.email}, viewing as
                    </span>
                  ) : null}
                  {r.actor.name && r.actor.email ? (
                    <span className="block text-xs text-slate-700 dark:text-slate-300">{r.actor.email}</span>
                  ) : null}
                </TableCell>
                <TableCell className="align-top">
                  {r.target ? (
                    <>
                      <span className="block text-xs text-slate-700 dark:text-slate-300">
                        {r.target.type}
                      </span>
                      {r.target.href ? (
                        <Link to={r.target.href} className={linkClass}>
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
                  <AuditDetailsView details={r.details} userAgent={r.userAgent} />
                </TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      <Pagination
        label="Audit log pages"
        noun="entries"
        start={start}
        shown={rows.length}
        prev={prev}
        next={next}
        prevLabel="Newer entries"
        nextLabel="Older entries"
      />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "auditLog");

import { data, Form, Link, useSearchParams } from "react-router";
import { requirePermission } from "../access/guard.server";
import { AUDIT_ACTIONS } from "../audit/actions";
import { listAudit, parseAuditQuery } from "../audit/query.server";
import { formatDateTime } from "../components/format";
import { pageTitle } from "../components/page-title";
import { ExportAuditButton } from "../components/tasks/export-audit-button";
import { Button } from "../components/ui/button";
import { EmptyState } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { Select } from "../components/ui/select";
import type { Route } from "./+types/dashboard.logs";

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "log.read");
  const parsed = parseAuditQuery(new URL(args.request.url).searchParams);
  if (!parsed.ok) throw data({ message: `Bad filter. ${parsed.message}` }, { status: 400 });
  return { query: parsed.value, ...(await listAudit(parsed.value)) };
}

function Diff({ details }: { details: string | null }) {
  if (!details) return <p className="text-sm text-slate-600 dark:text-slate-400">No details.</p>;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(details);
  } catch {
    return <pre className="text-xs">{details}</pre>;
  }
  const before = parsed.before as Record<string, unknown> | undefined;
  const after = parsed.after as Record<string, unknown> | undefined;
  if (!before && !after)
    return <pre className="overflow-x-auto text-xs">{JSON.stringify(parsed, null, 2)}</pre>;
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return (
    <table className="text-xs">
      <thead>
        <tr>
          <th scope="col" className="pr-4 text-left">
            Field
          </th>
          <th scope="col" className="pr-4 text-left">
            Before
          </th>
          <th scope="col" className="text-left">
            After
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => {
          const a = JSON.stringify(before?.[k] ?? null);
          const b = JSON.stringify(after?.[k] ?? null);
          return (
            <tr key={k} className={a !== b ? "bg-amber-50 dark:bg-amber-950" : undefined}>
              <td className="pr-4 font-medium">{k}</td>
              <td className="pr-4">{a}</td>
              <td>{b}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { rows, hasMore, query } = loaderData;
  const [params] = useSearchParams();
  const pageLink = (page: number) => {
    const next = new URLSearchParams(params);
    next.set("page", String(page));
    return `?${next}`;
  };
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold">Audit log</h1>
      <Form method="get" className="flex flex-wrap items-end gap-3" aria-label="Filter the audit log">
        <Field label="Actor email" name="actor" defaultValue={query.actor} className="w-56" />
        <Select label="Action" name="action" defaultValue={query.action}>
          <option value="">Any action</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </Select>
        <Field label="Target (type or type:id)" name="target" defaultValue={query.target} className="w-56" />
        <Field label="From" name="from" type="date" defaultValue={query.from} />
        <Field label="To" name="to" type="date" defaultValue={query.to} />
        <Button variant="secondary">Filter</Button>
        <ExportAuditButton
          filters={{
            actor: query.actor,
            action: query.action,
            target: query.target,
            from: query.from,
            to: query.to,
          }}
        />
      </Form>

      {rows.length === 0 ? (
        <EmptyState>No audit entries match these filters.</EmptyState>
      ) : (
        <ul
          className="flex flex-col divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900"
          data-testid="audit-rows"
        >
          {rows.map((r) => (
            <li key={r.id}>
              <details className="group px-3 py-2">
                <summary className="flex cursor-pointer flex-wrap items-center gap-x-4 gap-y-1 text-sm">
                  <time dateTime={r.created_at} className="w-48 text-slate-600 dark:text-slate-400">
                    {formatDateTime(r.created_at)}
                  </time>
                  <code className="font-semibold">{r.action}</code>
                  <span>{r.actor_email ?? "anonymous"}</span>
                  <span className="text-slate-600 dark:text-slate-400">
                    {r.target_type
                      ? `${r.target_type}${r.target_id ? `:${r.target_id.slice(0, 8)}` : ""}`
                      : ""}
                  </span>
                  <span className="text-slate-600 dark:text-slate-400">{r.ip}</span>
                </summary>
                <div className="mt-2 flex flex-col gap-2 pl-4">
                  <Diff details={r.details} />
                  <p className="text-xs text-slate-600 dark:text-slate-400">
                    User agent: {r.user_agent ?? "—"}
                  </p>
                </div>
              </details>
            </li>
          ))}
        </ul>
      )}
      <nav aria-label="Pagination" className="flex gap-2 text-sm">
        {query.page > 1 ? (
          <Link
            to={pageLink(query.page - 1)}
            className="rounded-md border border-slate-300 px-3 py-1 dark:border-slate-600"
          >
            Newer
          </Link>
        ) : null}
        <span className="px-2 py-1">Page {query.page}</span>
        {hasMore ? (
          <Link
            to={pageLink(query.page + 1)}
            className="rounded-md border border-slate-300 px-3 py-1 dark:border-slate-600"
          >
            Older
          </Link>
        ) : null}
      </nav>
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Audit log");

import type { MailLogEntry } from "../../mail/mail-log-entry";
import { formatDateTime } from "../format";
import { Card, EmptyState } from "../ui/card";

const STATUS_STYLE = {
  sent: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  outbox: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  failed: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
} as const;

/** Recent sends; development-outbox rows carry their link, since nobody received them. */
export function MailLog({ entries }: { entries: MailLogEntry[] }) {
  return (
    <Card title="Recent email">
      {entries.length === 0 ? (
        <EmptyState>No email has been sent yet.</EmptyState>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="mail-log">
            <caption className="sr-only">The most recent emails, newest first</caption>
            <thead>
              <tr className="border-b border-slate-200 dark:border-slate-800">
                <th scope="col" className="py-2 pr-3">
                  When
                </th>
                <th scope="col" className="py-2 pr-3">
                  To
                </th>
                <th scope="col" className="py-2 pr-3">
                  Subject
                </th>
                <th scope="col" className="py-2">
                  Status
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} className="border-b border-slate-100 align-top dark:border-slate-800">
                  <td className="py-2 pr-3 whitespace-nowrap">{formatDateTime(e.createdAt)}</td>
                  <td className="py-2 pr-3">{e.to}</td>
                  <td className="py-2 pr-3">
                    {e.subject}
                    {e.outboxLink ? (
                      <a
                        href={e.outboxLink}
                        className="mt-1 block break-all text-indigo-700 underline dark:text-indigo-300"
                      >
                        Open the link of this email
                      </a>
                    ) : null}
                  </td>
                  <td className="py-2">
                    <span className={`rounded px-2 py-0.5 text-xs ${STATUS_STYLE[e.status]}`}>
                      {e.status}
                    </span>
                    {e.error ? (
                      <p className="mt-1 text-xs text-red-800 dark:text-red-300">{e.error}</p>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

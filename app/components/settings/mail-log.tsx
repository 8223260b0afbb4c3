import type { MailLogEntry } from "../../mail/mail-log-entry";
import { useFormat } from "../format";
import { Badge, type BadgeVariant } from "../ui/badge";
import { Card } from "../ui/card";
import { Table, TableBody, TableCell, TableEmpty, TableHead, TableHeader, TableRow } from "../ui/table";

const STATUS: Record<MailLogEntry["status"], { label: string; variant: BadgeVariant }> = {
  sent: { label: "Sent", variant: "success" },
  outbox: { label: "Development outbox", variant: "warning" },
  failed: { label: "Failed", variant: "danger" },
};

/** Recent sends; development-outbox rows carry their link, since nobody received them. */
export function MailLog({ entries }: { entries: MailLogEntry[] }) {
  const { formatDateTime } = useFormat();
  return (
    <Card title="Recent email">
      <div data-testid="mail-log">
        <Table caption="The most recent emails, newest first" scrollable>
          <TableHead>
            <TableHeader>When</TableHeader>
            <TableHeader>To</TableHeader>
            <TableHeader>Subject</TableHeader>
            <TableHeader>Status</TableHeader>
          </TableHead>
          <TableBody>
            {entries.length === 0 ? (
              <TableEmpty colSpan={4}>No email has been sent yet.</TableEmpty>
            ) : (
              entries.map((e) => (
                <TableRow key={e.id} className="align-top">
                  <TableCell className="whitespace-nowrap align-top">{formatDateTime(e.createdAt)}</TableCell>
                  <TableCell className="align-top break-all">{e.to}</TableCell>
                  <TableCell className="align-top">
                    {e.subject}
                    {e.outboxLink ? (
                      <a
                        href={e.outboxLink}
                        className="mt-1 block break-all text-indigo-700 underline dark:text-indigo-300"
                      >
                        Open the link of this email
                      </a>
                    ) : null}
                  </TableCell>
                  <TableCell className="align-top">
                    <Badge variant={STATUS[e.status].variant}>{STATUS[e.status].label}</Badge>
                    {e.error ? (
                      <p className="mt-1 text-xs text-red-800 dark:text-red-300">{e.error}</p>
                    ) : null}
                  </TableCell>
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
      </div>
    </Card>
  );
}

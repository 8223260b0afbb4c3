import { useTranslation } from "../../i18n/use-translation";
import type { MailLogEntry } from "../../mail/mail-log-entry";
import { useFormat } from "../format";
import { Badge, type BadgeVariant } from "../ui/badge";
import { Card } from "../ui/card";
import { cn } from "../ui/cn";
import { linkVariants } from "../ui/link";
import { Table, TableBody, TableCell, TableEmpty, TableHead, TableHeader, TableRow } from "../ui/table";

const STATUS: Record<MailLogEntry["status"], BadgeVariant> = {
  sent: "success",
  outbox: "warning",
  failed: "destructive",
};

/** Recent sends; development-outbox rows carry their link, since nobody received them. */
export function MailLog({ entries }: { entries: MailLogEntry[] }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const statusLabel = {
    sent: t("settings:mailLog.status.sent"),
    outbox: t("settings:mailLog.status.outbox"),
    failed: t("settings:mailLog.status.failed"),
  };
  return (
    <Card title={t("settings:mailLog.title")}>
      <div data-testid="mail-log">
        <Table caption={t("settings:mailLog.caption")} scrollable>
          <TableHead>
            <TableHeader>{t("settings:mailLog.when")}</TableHeader>
            <TableHeader>{t("settings:mailLog.to")}</TableHeader>
            <TableHeader>{t("settings:mailLog.subject")}</TableHeader>
            <TableHeader>{t("settings:mailLog.statusHeader")}</TableHeader>
          </TableHead>
          <TableBody>
            {entries.length === 0 ? (
              <TableEmpty colSpan={4}>{t("settings:mailLog.empty")}</TableEmpty>
            ) : (
              entries.map((e) => (
                <TableRow key={e.id} className="align-top">
                  <TableCell className="whitespace-nowrap align-top">{formatDateTime(e.createdAt)}</TableCell>
                  <TableCell className="align-top break-all">{e.to}</TableCell>
                  <TableCell className="align-top">
                    {e.subject}
                    {e.outboxLink ? (
                      <a href={e.outboxLink} className={cn(linkVariants(), "mt-1 block break-all")}>
                        {t("settings:mailLog.openLink")}
                      </a>
                    ) : null}
                  </TableCell>
                  <TableCell className="align-top">
                    <Badge variant={STATUS[e.status]}>{statusLabel[e.status]}</Badge>
                    {e.error ? <p className="mt-1 text-xs text-destructive">{e.error}</p> : null}
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

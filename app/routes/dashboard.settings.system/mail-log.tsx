import { useId } from "react";
import { useFormat } from "../../components/format";
import { Badge, type BadgeVariant } from "../../components/ui/badge";
import { Card } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { hintClass } from "../../components/ui/field";
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
import type { MailLogEntry } from "../../mail/mail-log-entry";

const STATUS: Record<MailLogEntry["status"], BadgeVariant> = {
  sent: "success",
  outbox: "warning",
  failed: "destructive",
};

/**
 * Recent sends; development-outbox rows carry their link, since nobody received them. What the
 * outbox is (no provider set up, nobody got the email) is said under the table whenever it holds
 * such a row, and each such badge points at that text.
 */
export function MailLog({
  entries,
  outboxKeepsLinks,
}: {
  entries: MailLogEntry[];
  outboxKeepsLinks: boolean;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const noteId = useId();
  const statusLabel = {
    sent: t("settings:mailLog.status.sent"),
    outbox: outboxKeepsLinks
      ? t("settings:mailLog.status.outbox")
      : t("settings:mailLog.status.outboxProduction"),
    failed: t("settings:mailLog.status.failed"),
  };
  const hasOutbox = entries.some((e) => e.status === "outbox");
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
                    {e.templateVersion !== null ? (
                      <span className="block text-xs text-muted-foreground">
                        {t("settings:mailLog.templateVersion", { version: e.templateVersion })}
                      </span>
                    ) : null}
                    {e.outboxLink ? (
                      <a href={e.outboxLink} className={cn(linkVariants(), "mt-1 block break-all")}>
                        {t("settings:mailLog.openLink")}
                      </a>
                    ) : null}
                  </TableCell>
                  <TableCell className="align-top">
                    <Badge
                      variant={STATUS[e.status]}
                      aria-describedby={e.status === "outbox" ? noteId : undefined}
                    >
                      {statusLabel[e.status]}
                    </Badge>
                    {e.error ? <p className="mt-1 text-xs text-destructive">{e.error}</p> : null}
                  </TableCell>
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
        {hasOutbox ? (
          <p id={noteId} className={hintClass} data-testid="outbox-note">
            {outboxKeepsLinks
              ? t("settings:mailLog.outboxNote.development")
              : t("settings:mailLog.outboxNote.production")}
          </p>
        ) : null}
      </div>
    </Card>
  );
}

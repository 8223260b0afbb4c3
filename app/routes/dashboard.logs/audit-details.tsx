import type { AuditDetails } from "../../audit/audit-view";
import { cn } from "../../components/ui/cn";
import { linkVariants } from "../../components/ui/link";
import { deviceWords } from "../../http/device-words";
import { useTranslation } from "../../i18n/use-translation";

/** An entry's details behind a disclosure: what changed (before → after) and the facts recorded. */
export function AuditDetailsView({
  details,
  userAgent,
  device,
  requestId,
}: {
  details: AuditDetails;
  userAgent: string | null;
  device?: { browser: string | null; os: string | null } | null;
  requestId?: string | null;
}) {
  const { t } = useTranslation();
  const facts = details && details.kind !== "text" ? details.facts : [];
  const summary =
    details?.kind === "diff"
      ? t("audit:details.changed", { count: details.changes.filter((c) => c.changed).length })
      : t("audit:details.show");
  return (
    <details className="text-xs">
      <summary className={cn(linkVariants({ variant: "quiet" }), "cursor-pointer text-sm")}>
        {summary}
      </summary>
      <div className="mt-2 flex flex-col gap-2">
        {details?.kind === "diff" ? (
          <table className="text-xs">
            <thead>
              <tr>
                <th scope="col" className="pr-4 text-left">
                  {t("audit:details.field")}
                </th>
                <th scope="col" className="pr-4 text-left">
                  {t("audit:details.before")}
                </th>
                <th scope="col" className="text-left">
                  {t("audit:details.after")}
                </th>
              </tr>
            </thead>
            <tbody>
              {details.changes.map((c) => (
                <tr key={c.field} className={c.changed ? "bg-warning/10" : undefined}>
                  <th scope="row" className="pr-4 text-left font-medium">
                    {c.field}
                  </th>
                  <td className="pr-4">{c.before}</td>
                  <td>{c.after}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {details?.kind === "text" ? <p className="break-all">{details.text}</p> : null}
        {facts.length ? (
          <dl className="grid grid-cols-[auto_1fr] gap-x-3">
            {facts.map((f) => (
              <div key={f.field} className="contents">
                <dt className="font-medium">{f.field}</dt>
                <dd className="break-all">{f.value}</dd>
              </div>
            ))}
          </dl>
        ) : null}
        {!details ? <p>{t("audit:details.none")}</p> : null}
        {/* In words, as on the sessions list; the exact string stays on hover and in the export. */}
        <p className="break-all text-muted-foreground" title={userAgent ?? undefined}>
          {t("audit:details.browser", { userAgent: device ? deviceWords(device, t).device : "—" })}
        </p>
        {requestId ? (
          <p className="break-all font-mono text-muted-foreground">
            {t("requests:auditRequest", { id: requestId })}
          </p>
        ) : null}
      </div>
    </details>
  );
}

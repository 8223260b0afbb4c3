import { useFetcher } from "react-router";
import { useFormat } from "../../components/format";
import { Button } from "../../components/ui/button";
import { Card, EmptyState, FormError } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";
import { SectionStatus } from "../../routes/dashboard.settings/use-settings-form";
import type { action } from "./route";
import type { EmailTemplatesData, TemplateAnswer } from "./types";

/** Every saved version, newest first; any but the one in use can be restored. */
export function TemplateHistory({ data }: { data: EmailTemplatesData }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const restore = useFetcher<typeof action>({ key: `email-template-restore:${data.type}/${data.language}` });
  const answer = restore.data as TemplateAnswer | undefined;
  return (
    <Card title={t("settings:emailTemplates.history")}>
      {data.history.length === 0 ? (
        <EmptyState>{t("settings:emailTemplates.noHistory")}</EmptyState>
      ) : (
        <ol className="flex flex-col divide-y">
          {data.history.map((v, i) => (
            <li key={v.version} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
              <div>
                <span className="font-medium">
                  {t("settings:emailTemplates.version", { version: v.version })}
                </span>
                {" · "}
                {t(`settings:emailTemplates.change.${v.change}`)}
                {" · "}
                {t("settings:emailTemplates.by", {
                  when: formatDateTime(v.createdAt),
                  who: v.createdBy ?? "?",
                })}
                {v.subject ? <div className="text-muted-foreground">{v.subject}</div> : null}
              </div>
              {i === 0 ? (
                <span className="text-muted-foreground">{t("settings:emailTemplates.current")}</span>
              ) : data.editable && v.change !== "reset" ? (
                <restore.Form method="post">
                  <input type="hidden" name="type" value={data.type} />
                  <input type="hidden" name="language" value={data.language} />
                  <input type="hidden" name="version" value={v.version} />
                  <Button
                    name="intent"
                    value="restore"
                    size="sm"
                    variant="outline"
                    aria-label={`${t("settings:emailTemplates.restore")}: ${t("settings:emailTemplates.version", { version: v.version })}`}
                  >
                    {t("settings:emailTemplates.restore")}
                  </Button>
                </restore.Form>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <FormError message={answer?.formError} />
      <SectionStatus answer={answer} />
    </Card>
  );
}

import { Form } from "react-router";
import { Button } from "../../components/ui/button";
import { Card } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { controlVariants, labelClass } from "../../components/ui/field";
import { languageName } from "../../i18n/language-name";
import { useTranslation } from "../../i18n/use-translation";
import type { EmailTemplatesData } from "./types";

/** Which email in which language: a GET form, so each choice has its own address. */
export function TemplatePicker({ data }: { data: EmailTemplatesData }) {
  const { t } = useTranslation();
  const current = data.types.find((x) => x.type === data.type);
  return (
    <Card title={t("settings:emailTemplates.title")}>
      <p className="mb-3 text-sm text-muted-foreground">{t("settings:emailTemplates.intro")}</p>
      <Form method="get" className="flex flex-wrap items-end gap-3" key={`${data.type}/${data.language}`}>
        <label className={cn(labelClass, "flex flex-col")}>
          {t("settings:emailTemplates.type")}
          <select name="type" defaultValue={data.type} className={cn(controlVariants(), "w-72")}>
            {data.types.map((x) => (
              <option key={x.type} value={x.type}>
                {t(`settings:emailTemplates.types.${x.type}`)}
                {x.customized.length ? ` · ${x.customized.map((l) => l.toUpperCase()).join(", ")}` : ""}
              </option>
            ))}
          </select>
        </label>
        <label className={cn(labelClass, "flex flex-col")}>
          {t("settings:emailTemplates.language")}
          <select name="language" defaultValue={data.language} className={cn(controlVariants(), "w-40")}>
            {data.languages.map((l) => (
              <option key={l} value={l}>
                {languageName(l)}
              </option>
            ))}
          </select>
        </label>
        <Button type="submit" variant="outline">
          {t("settings:emailTemplates.open")}
        </Button>
      </Form>
      {current?.customized.length ? (
        <p className="mt-2 text-sm text-muted-foreground">
          {t("settings:emailTemplates.customizedIn", {
            languages: current.customized.map((l) => l.toUpperCase()).join(", "),
          })}
        </p>
      ) : null}
    </Card>
  );
}

import { useFetcher } from "react-router";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { errorTextClass, hintClass, labelClass, Textarea } from "../../components/ui/field";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";
import type { action } from "./route";

/**
 * The rule as lines of ranges, "Check" first (who it would have refused in the last 30 days, from
 * the audit log's addresses), then "Save". One form, two buttons: the preview stays on the page.
 */
export function NetworkRuleForm({ role }: { role: { id: string; allowedNetworks: string[] } }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  const answer = fetcher.data;
  const errors = (answer && "errors" in answer ? answer.errors : {}) as Record<string, string>;
  const preview = answer && "preview" in answer ? answer : null;
  const pendingIntent = fetcher.state !== "idle" ? fetcher.formData?.get("intent") : null;
  return (
    <Card title={t("access:networks.edit")}>
      <fetcher.Form method="post" className="flex flex-col gap-4">
        <input type="hidden" name="roleId" value={role.id} />
        <div>
          <label htmlFor="networks" className={labelClass}>
            {t("access:networks.label")}
          </label>
          <Textarea
            id="networks"
            name="networks"
            rows={5}
            defaultValue={role.allowedNetworks.join("\n")}
            spellCheck={false}
            className="font-mono"
            aria-invalid={errors.networks ? true : undefined}
            aria-describedby={errors.networks ? "networks-hint networks-error" : "networks-hint"}
          />
          <p id="networks-hint" className={hintClass}>
            {t("access:networks.hint")}
          </p>
          {errors.networks ? (
            <p id="networks-error" className={errorTextClass}>
              {errors.networks}
            </p>
          ) : null}
        </div>
        <div className="flex flex-wrap gap-3">
          <Button name="intent" value="preview" variant="secondary" pending={pendingIntent === "preview"}>
            {t("access:networks.check")}
          </Button>
          <Button name="intent" value="save" pending={pendingIntent === "save"}>
            {t("access:networks.save")}
          </Button>
        </div>
        <FormError message={answer && "formError" in answer ? answer.formError : null} />
      </fetcher.Form>
      <div role="status" className="mt-4" data-testid="network-preview">
        {preview ? <Refused preview={preview.preview} /> : null}
      </div>
    </Card>
  );
}

type Preview = {
  people: { id: string; name: string; email: string; addresses: string[]; lastAt: string }[];
  total: number;
  days: number;
};

function Refused({ preview }: { preview: Preview }) {
  const { t } = useTranslation();
  if (preview.total === 0) return <p>{t("access:networks.nobody", { days: preview.days })}</p>;
  return (
    <>
      <p className="font-medium text-warning">
        {t("access:networks.refused", { count: preview.total, days: preview.days })}
      </p>
      <Table caption={t("access:networks.refusedCaption")} className="relative mt-2">
        <TableHead>
          <TableHeader>{t("access:networks.person")}</TableHeader>
          <TableHeader>{t("access:networks.addresses")}</TableHeader>
        </TableHead>
        <TableBody>
          {preview.people.map((p) => (
            <TableRow key={p.id}>
              <TableCell>
                <span className="font-medium">{p.name}</span>
                <span className="block text-xs text-muted-foreground">{p.email}</span>
              </TableCell>
              <TableCell>
                <code className="text-sm">{p.addresses.join(", ")}</code>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </>
  );
}

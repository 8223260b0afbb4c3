import type { ConfigView } from "../../settings/config-keys";
import { formatDateTime } from "../format";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { Field } from "../ui/field";
import { useSection } from "./use-section";

const SOURCE_LABEL: Record<ConfigView["source"], string> = {
  database: "from Settings (database)",
  environment: "from the environment",
  default: "built-in default",
  unset: "not set",
};

export function SystemSection({ config }: { config: ConfigView[] }) {
  const save = useSection("system");
  const reset = useSection("system");
  return (
    <Card title="Mail and branding">
      <save.fetcher.Form method="post" className="flex flex-col gap-5" noValidate>
        <input type="hidden" name="intent" value="system" />
        {config.map((c) => (
          <div key={c.key} className="flex flex-col gap-1">
            <Field
              label={c.label}
              name={c.key}
              type={c.secret ? "password" : "text"}
              autoComplete="off"
              defaultValue={c.secret || c.source !== "database" ? "" : (c.value ?? "")}
              placeholder={
                c.secret ? (c.hint ? `set (${c.hint}) — leave empty to keep` : "not set") : (c.value ?? "")
              }
              error={save.errors[c.key]}
            />
            <p className="text-xs text-slate-600 dark:text-slate-400" data-testid={`source-${c.key}`}>
              {c.secret ? (c.hint ? `Set (${c.hint}), ` : "Not set, ") : ""}
              {SOURCE_LABEL[c.source]}
              {c.updatedAt ? ` · changed ${formatDateTime(c.updatedAt)}` : ""}. {c.help}
            </p>
            {c.source === "database" ? (
              <div>
                <button
                  type="submit"
                  form={`reset-${c.key}`}
                  className="text-xs text-indigo-700 underline dark:text-indigo-300"
                  aria-label={`Reset ${c.label} to the environment value`}
                >
                  Reset to environment
                </button>
              </div>
            ) : null}
          </div>
        ))}
        {save.status}
        {reset.status}
        <div>
          <Button pending={save.pending}>Save settings</Button>
        </div>
      </save.fetcher.Form>
      {config.map((c) => (
        <reset.fetcher.Form key={c.key} id={`reset-${c.key}`} method="post" hidden>
          <input type="hidden" name="intent" value="system" />
          <input type="hidden" name="reset" value={c.key} />
        </reset.fetcher.Form>
      ))}
    </Card>
  );
}

import type { ConfigView } from "../../settings/config-keys";
import { systemSettingsSchema } from "../../settings/settings-form";
import { useFormat } from "../format";
import { PasswordField, TextField } from "../forms/fields";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import {
  SectionStatus,
  type SettingsFetcher,
  useSettingsFetcher,
  useSettingsForm,
} from "./use-settings-form";

const SOURCE_LABEL: Record<ConfigView["source"], string> = {
  database: "from Settings (database)",
  environment: "from the environment",
  default: "built-in default",
  unset: "not set",
};

export function SystemSection({ config }: { config: ConfigView[] }) {
  // Keyed by what is stored: after a save or a reset the fields start again from it.
  // The answers stay with the section, outside the keyed form.
  const stored = config.map((c) => `${c.key}:${c.source}:${c.updatedAt ?? ""}`).join("|");
  const saveFetcher = useSettingsFetcher();
  const resetFetcher = useSettingsFetcher();
  const answer = (f: SettingsFetcher) => (f.data?.intent === "system" ? f.data : undefined);
  return (
    <Card title="Mail and branding">
      <SystemForm key={stored} config={config} saveFetcher={saveFetcher} resetFetcher={resetFetcher} />
      <SectionStatus answer={answer(saveFetcher)} />
      <SectionStatus answer={answer(resetFetcher)} />
    </Card>
  );
}

function SystemForm({
  config,
  saveFetcher,
  resetFetcher,
}: {
  config: ConfigView[];
  saveFetcher: SettingsFetcher;
  resetFetcher: SettingsFetcher;
}) {
  const { formatDateTime } = useFormat();
  const save = useSettingsForm("system", systemSettingsSchema, {
    fetcher: saveFetcher,
    defaultValue: Object.fromEntries(
      config.map((c) => [c.key, c.secret || c.source !== "database" ? "" : (c.value ?? "")]),
    ),
  });
  const reset = useSettingsForm("system", systemSettingsSchema, {
    id: "settings-system-reset",
    fetcher: resetFetcher,
  });
  return (
    <>
      <save.fetcher.Form method="post" className="flex flex-col gap-5" {...save.formProps}>
        <input type="hidden" name="intent" value="system" />
        {config.map((c) => {
          const Input = c.secret ? PasswordField : TextField;
          return (
            <div key={c.key} className="flex flex-col gap-1">
              <Input
                meta={save.fields[c.key]}
                label={c.label}
                autoComplete="off"
                placeholder={
                  c.secret ? (c.hint ? `set (${c.hint}) — leave empty to keep` : "not set") : (c.value ?? "")
                }
              />
              <p className="text-xs text-slate-700 dark:text-slate-300" data-testid={`source-${c.key}`}>
                {c.secret ? (c.hint ? `Set (${c.hint}), ` : "Not set, ") : ""}
                {SOURCE_LABEL[c.source]}
                {c.updatedAt ? ` · changed ${formatDateTime(c.updatedAt)}` : ""}. {c.help}
              </p>
              {c.source === "database" ? (
                <div>
                  <button
                    type="submit"
                    form={`reset-${c.key}`}
                    className="rounded text-xs text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 dark:text-indigo-300"
                    aria-label={`Reset ${c.label} to the environment value`}
                  >
                    Reset to environment
                  </button>
                </div>
              ) : null}
            </div>
          );
        })}
        {save.errors}
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
    </>
  );
}

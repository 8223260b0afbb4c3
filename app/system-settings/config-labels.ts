import type { TFunction } from "i18next";
import type { ConfigKey } from "./config-keys";

// A system setting's label and help in the reader's language, by its key; every key has both in
// every language (app/system-settings/config-labels.test.ts). config-keys.ts keeps the English for the API.

export function configLabel(t: TFunction, key: ConfigKey): string {
  return t(`settings:system.config.${key}.label`);
}

export function configHelp(t: TFunction, key: ConfigKey): string {
  return t(`settings:system.config.${key}.help`);
}

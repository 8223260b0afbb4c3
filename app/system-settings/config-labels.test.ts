import { describe, expect, it } from "vitest";
import { tFor } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import { CONFIG_KEYS, SYSTEM_CONFIG } from "./config-keys";
import { configHelp, configLabel } from "./config-labels";

// System settings are declared in code; Settings → System names them by key from settings.json.
describe("system setting labels in every language", () => {
  it("English matches config-keys.ts", () => {
    const t = tFor("en");
    for (const key of CONFIG_KEYS) {
      expect(configLabel(t, key)).toBe(SYSTEM_CONFIG[key].label);
      expect(configHelp(t, key)).toBe(SYSTEM_CONFIG[key].help);
    }
  });

  for (const language of supportedLanguages())
    it(`${language} has a label and a help text for every setting`, () => {
      const t = tFor(language);
      for (const key of CONFIG_KEYS) {
        expect(configLabel(t, key).trim(), key).not.toBe("");
        expect(configHelp(t, key).trim(), key).not.toBe("");
      }
    });
});

import { describe, expect, it } from "vitest";
import { tFor } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import { auditActionText } from "./action-text";
import { ACTION_LABELS, AUDIT_ACTIONS } from "./actions";
import { TARGET_TYPES, targetTypeLabel } from "./view.server";

// The log and its filter name each action through audit.json (a key built from the action's name):
// every action must read in every language, or the page would throw (tests) or show a raw key.
describe("audit action labels in every language", () => {
  it("English says what ACTION_LABELS says, for every action", () => {
    const t = tFor("en");
    for (const action of AUDIT_ACTIONS)
      expect(auditActionText(t, action), action).toBe(ACTION_LABELS[action]);
  });

  for (const language of supportedLanguages().filter((l) => l !== "en")) {
    it(`${language} has its own words for every action, none repeated`, () => {
      const t = tFor(language);
      const labels = AUDIT_ACTIONS.map((action) => auditActionText(t, action));
      for (const [i, action] of AUDIT_ACTIONS.entries()) {
        expect(labels[i], action).not.toBe(action);
        expect(labels[i], action).toMatch(/^[A-ZÄÖÜ][^._]*$/);
      }
      expect(new Set(labels).size).toBe(AUDIT_ACTIONS.length);
    });
  }

  it("German, for example", () => {
    expect(auditActionText(tFor("de"), "auth.login.succeeded")).toBe("Angemeldet");
    expect(auditActionText(tFor("de"), "account.language.update")).toBe("Eigene Sprache geändert");
    expect(tFor("de")("audit:changedRoles")).toBe("Rollen geändert");
  });

  it("an action from an older release, no longer listed, shows as written (no missing key)", () => {
    expect(auditActionText(tFor("de"), "legacy.thing")).toBe("legacy.thing");
  });

  it("every target type the log names, in every language (English as the loader words it)", () => {
    for (const language of supportedLanguages())
      for (const type of TARGET_TYPES) {
        const text = tFor(language)(`audit:targetType.${type}`);
        if (language === "en") expect(text, type).toBe(targetTypeLabel(type));
        else expect(text.trim(), `${language} ${type}`).not.toBe("");
      }
    expect(tFor("de")("audit:targetType.user")).toBe("Benutzer");
  });
});

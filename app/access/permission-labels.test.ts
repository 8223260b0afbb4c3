import { describe, expect, it } from "vitest";
import { tFor } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import { anyPermissionLabel, permissionLabel } from "./permission-labels";
import { PERMISSIONS } from "./permissions";

// Permissions are declared in code; their labels are read by key from access.json, so every
// permission needs one in every language (a new permission without one fails here).
describe("permission labels in every language", () => {
  it("English matches the label declared in code", () => {
    const t = tFor("en");
    for (const p of PERMISSIONS) expect(permissionLabel(t, p.key), p.key).toBe(p.label);
  });

  for (const language of supportedLanguages().filter((l) => l !== "en")) {
    it(`${language} labels every permission, each its own`, () => {
      const t = tFor(language);
      const labels = PERMISSIONS.map((p) => permissionLabel(t, p.key));
      for (const [i, p] of PERMISSIONS.entries()) {
        expect(labels[i], p.key).not.toBe(p.key);
        expect(labels[i]!.trim(), p.key).not.toBe("");
      }
      expect(new Set(labels).size).toBe(PERMISSIONS.length);
    });
  }

  it("German, for example; a key no longer declared shows as written", () => {
    expect(permissionLabel(tFor("de"), "user.read")).toBe("Benutzer ansehen");
    expect(anyPermissionLabel(tFor("de"), "legacy.permission")).toBe("legacy.permission");
  });
});

import { describe, expect, it } from "vitest";
import { tFor } from "../i18n/i18n.server";
import { roleLabel, TRANSLATED_ROLE_NAMES } from "./role-labels";
import { SYSTEM_ROLES } from "./roles";

describe("role labels", () => {
  it("every system role has a translation, and English says the seeded label", () => {
    expect([...TRANSLATED_ROLE_NAMES].sort()).toEqual(SYSTEM_ROLES.map((r) => r.name).sort());
    for (const role of SYSTEM_ROLES) expect(roleLabel(tFor("en"), role)).toBe(role.label);
  });

  it("says a system role in German while it keeps its seeded label", () => {
    expect(roleLabel(tFor("de"), { name: "guest", label: "Guest" })).toBe("Gast");
    expect(roleLabel(tFor("de"), { name: "super_admin", label: "Super Admin" })).toBe("Super-Admin");
  });

  it("keeps an admin's own words: a relabelled system role or a role of their own", () => {
    expect(roleLabel(tFor("de"), { name: "guest", label: "Besucher" })).toBe("Besucher");
    expect(roleLabel(tFor("de"), { name: "auditor", label: "Auditor" })).toBe("Auditor");
  });

  it("says the label an admin wrote for the reader's language first, else falls back in order", () => {
    const de = tFor("de");
    const en = tFor("en");
    // 1. The admin's German label, for a role of their own and for a system role alike.
    expect(roleLabel(de, { name: "auditor", label: "Auditor", translations: { de: "Prüfer" } })).toBe(
      "Prüfer",
    );
    expect(roleLabel(de, { name: "guest", label: "Guest", translations: { de: "Besucher" } })).toBe(
      "Besucher",
    );
    // 2. None for German: a system role never renamed is said in our German.
    expect(roleLabel(de, { name: "guest", label: "Guest", translations: {} })).toBe("Gast");
    // 3. Else the label as written.
    expect(roleLabel(de, { name: "auditor", label: "Auditor", translations: {} })).toBe("Auditor");
    expect(roleLabel(de, { name: "guest", label: "Visitor", translations: {} })).toBe("Visitor");
    // A reader in English is not shown the German label.
    expect(roleLabel(en, { name: "auditor", label: "Auditor", translations: { de: "Prüfer" } })).toBe(
      "Auditor",
    );
    expect(roleLabel(en, { name: "guest", label: "Guest", translations: { de: "Besucher" } })).toBe("Guest");
  });
});

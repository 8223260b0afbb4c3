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
});

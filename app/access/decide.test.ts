import { describe, expect, it } from "vitest";
import { decide, type Grant, type GrantRole, scopeOf } from "./decide";

const role = (name: string, permissions: string[], all = false): GrantRole => ({
  id: name,
  name,
  label: name,
  all,
  permissions: new Set(permissions),
});
const admin = role("admin", ["dashboard.access", "user.read", "user.update", "settings.manage", "log.read"]);
const superAdmin = role("super_admin", [], true);
const sales = { id: "sales", name: "Sales" };
const inSales = { kind: "user" as const, id: "u1", teamIds: ["sales"] };
const inMarketing = { kind: "user" as const, id: "u2", teamIds: ["marketing"] };
const subject = (...grants: Grant[]) => ({ active: true, grants });

describe("decide(): one answer for guards, lists and the why panel", () => {
  it("a grant within a team gives its people and teams there, nothing elsewhere, never dashboard or settings", () => {
    const lead = subject({ role: admin, team: sales, expiresAt: null });
    expect(decide(lead, "user.update", inSales)).toMatchObject({ allowed: true, blockers: [] });
    expect(decide(lead, "user.update", inMarketing)).toMatchObject({
      allowed: false,
      blockers: ["out_of_scope"],
    });
    expect(decide(lead, "user.update", { kind: "team", id: "sales" }).allowed).toBe(true);
    expect(decide(lead, "settings.manage")).toMatchObject({ allowed: false, blockers: ["global_only"] });
    expect(decide(lead, "dashboard.access").allowed).toBe(false);
    // Held somewhere: the page opens and lists only Sales.
    expect(decide(lead, "user.read").allowed).toBe(true);
    expect(scopeOf(lead, "user.read")).toEqual(["sales"]);
    expect(scopeOf(lead, "settings.manage")).toEqual([]);
  });

  it("a global grant reaches everyone; super admin only when global", () => {
    expect(scopeOf(subject({ role: admin, team: null, expiresAt: null }), "user.read")).toBeNull();
    const scopedSuper = subject({ role: superAdmin, team: sales, expiresAt: null });
    expect(decide(scopedSuper, "user.read", inSales)).toMatchObject({ allowed: false, superAdmin: false });
    const real = decide(subject({ role: superAdmin, team: null, expiresAt: null }), "anything.new");
    expect(real).toMatchObject({ allowed: true, superAdmin: true });
  });

  it("an expired grant gives nothing from its instant, and says so; a disabled account holds nothing", () => {
    const at = Date.parse("2026-11-29T12:00:00Z");
    const ending = subject({ role: admin, team: null, expiresAt: "2026-11-29T12:00:00Z" });
    expect(decide(ending, "user.read", undefined, at - 1).allowed).toBe(true);
    expect(decide(ending, "user.read", undefined, at)).toMatchObject({
      allowed: false,
      blockers: ["expired"],
    });
    const disabled = { active: false, grants: [{ role: admin, team: null, expiresAt: null }] };
    expect(decide(disabled, "user.read")).toMatchObject({ allowed: false, blockers: ["disabled"] });
    expect(decide(subject(), "user.read")).toMatchObject({ allowed: false, blockers: ["not_granted"] });
  });
});

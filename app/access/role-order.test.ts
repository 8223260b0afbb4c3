import { describe, expect, it } from "vitest";
import { compareRoles, sortRoles } from "./role-order";

describe("role order", () => {
  it("lists system roles by rank, then custom roles by label", () => {
    const roles = [
      { name: "guest", label: "Guest" },
      { name: "zeta_team", label: "zeta crew" },
      { name: "user", label: "User" },
      { name: "support", label: "Alpha Support" },
      { name: "admin", label: "Administrator" },
      { name: "super_admin", label: "Super Admin" },
      { name: "manager", label: "Manager" },
      { name: "beta", label: "Beta" },
    ];
    expect(sortRoles(roles).map((r) => r.name)).toEqual([
      "super_admin",
      "admin",
      "manager",
      "user",
      "guest",
      "support",
      "beta",
      "zeta_team",
    ]);
  });

  it("does not change its input and is stable on equal labels (falls back to the name)", () => {
    const roles = [
      { name: "b", label: "Same" },
      { name: "a", label: "Same" },
    ];
    expect(sortRoles(roles).map((r) => r.name)).toEqual(["a", "b"]);
    expect(roles.map((r) => r.name)).toEqual(["b", "a"]);
    expect(compareRoles({ name: "user" }, { name: "admin" })).toBeGreaterThan(0);
  });
});

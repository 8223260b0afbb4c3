import { describe, expect, it } from "vitest";
import { tFor } from "../i18n/i18n.server";
import { roleCan } from "./role-can";

describe("roleCan: what a role gives, in words", () => {
  it("names the permissions in the declared order, and says so for all and none", () => {
    const t = tFor("en");
    expect(roleCan(t, { permissions: ["team.write", "user.read"] })).toBe("Can: View Users, Manage Teams.");
    expect(roleCan(t, { permissions: "all" })).toBe("Can: everything, also what is added later.");
    expect(roleCan(t, { permissions: [] })).toBe("Can: nothing yet.");
    expect(roleCan(tFor("de"), { permissions: [] })).toBe("Darf: noch nichts.");
  });
});

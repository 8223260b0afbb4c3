import { describe, expect, it } from "vitest";
import { missingPermission } from "./missing-permission";
import { PERMISSIONS } from "./permissions";

describe("missingPermission", () => {
  it("names the permission by label and key, and who can grant it", () => {
    expect(missingPermission("user.read")).toEqual({
      permission: "user.read",
      message: 'Your account does not have the "View Users" permission (user.read) needed for this page.',
      grantedBy:
        'A super admin, or someone whose role has the "Manage Roles & Permissions" permission (roles.manage), can grant it.',
    });
  });

  it("has a label for every permission in the list", () => {
    for (const { key, label } of PERMISSIONS) expect(missingPermission(key).message).toContain(`"${label}"`);
  });

  it("sends super-admin-only refusals to a super admin", () => {
    expect(missingPermission(null)).toMatchObject({ permission: null, grantedBy: "Ask a super admin." });
  });
});

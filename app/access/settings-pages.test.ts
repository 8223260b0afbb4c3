import { describe, expect, it } from "vitest";
import { currentSettingsLink, oldTabPath, settingsMenu } from "./settings-pages";

describe("Settings' pages", () => {
  it("an old tab's fragment names its page; a name from the object's prototype names none", () => {
    expect(oldTabPath("#webhooks")).toBe("/dashboard/settings/webhooks");
    expect(oldTabPath("#two-factor")).toBe("/dashboard/settings/security#two-factor");
    expect(oldTabPath("security")).toBe("/dashboard/settings/security");
    for (const hash of ["", "#", "#constructor", "#__proto__", "#toString", "#hasOwnProperty", "#nope"])
      expect(oldTabPath(hash), hash).toBeUndefined();
  });

  it("a stored link to an old tab reads as its page; every other link is left as written", () => {
    expect(currentSettingsLink("/dashboard/settings#system")).toBe("/dashboard/settings/system");
    expect(currentSettingsLink("/dashboard/settings#two-factor")).toBe(
      "/dashboard/settings/security#two-factor",
    );
    for (const link of [
      "/dashboard/settings",
      "/dashboard/settings#constructor",
      "/dashboard/settings/system",
      "/dashboard/users#system",
      "https://example.test/dashboard/settings#system",
    ])
      expect(currentSettingsLink(link), link).toBe(link);
  });

  it("the workspace pages follow the permissions their loaders demand", () => {
    const none = settingsMenu({ isSuperAdmin: false, permissions: ["dashboard.access"] });
    expect(none).toEqual({ account: ["profile", "security", "api-tokens"], workspace: [] });
    const manager = settingsMenu({ isSuperAdmin: false, permissions: ["settings.manage"] });
    expect(manager.workspace).toEqual(["system", "email-templates", "webhooks"]);
    const directory = settingsMenu({
      isSuperAdmin: false,
      permissions: ["settings.manage", "user.write", "user.update"],
    });
    expect(directory.workspace).toEqual(["invite", "system", "email-templates", "webhooks", "directory"]);
    expect(settingsMenu({ isSuperAdmin: true, permissions: [] }).workspace).toEqual([
      "invite",
      "system",
      "email-templates",
      "webhooks",
      "sso",
      "directory",
    ]);
  });
});

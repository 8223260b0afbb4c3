import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { tFor } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import { loader as rootLoader } from "../root";
import { action, loader } from "../routes/dashboard.access/route";
import { loader as usersLoader } from "../routes/dashboard.users/route";
import { languageOf, readLabelTranslations } from "./label-translations";
import { invalidateRoles } from "./role-cache.server";

// Labels an admin gives per language (docs/decisions/040-label-translations.md): saved with the
// label through the access page's forms, refused when bad, audited, and shown to the reader.

beforeAll(setupDatabase);

function post(cookie: string | undefined, values: Record<string, string | string[]>) {
  return run(() => action(args(formRequest("/dashboard/access", values, { cookie }))));
}

const roleRow = (name: string) =>
  db().selectFrom("role").selectAll().where("name", "=", name).executeTakeFirstOrThrow();
const menuRow = (url: string) =>
  db().selectFrom("menu_item").selectAll().where("url", "=", url).executeTakeFirstOrThrow();

async function lastAudit(action: string, targetId: string) {
  const row = await db()
    .selectFrom("audit_log")
    .select("details")
    .where("action", "=", action)
    .where("target_id", "=", targetId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  return JSON.parse(row.details ?? "{}");
}

/** The whole menu form with one item changed, as the editor posts it. */
async function menuForm(change: {
  url: string;
  title?: string;
  de?: string;
  extra?: Record<string, string>;
}) {
  const rows = await db().selectFrom("menu_item").selectAll().orderBy("position").execute();
  const out: Record<string, string> = { intent: "save-menu" };
  for (const [i, r] of rows.entries()) {
    const mine = r.url === change.url;
    out[`items[${i}].id`] = r.id;
    out[`items[${i}].title`] = mine && change.title ? change.title : r.title;
    out[`items[${i}].url`] = r.url;
    out[`items[${i}].icon`] = r.icon;
    out[`items[${i}].requiredPermission`] = r.required_permission;
    out[`items[${i}].translations.de`] = mine
      ? (change.de ?? "")
      : (readLabelTranslations(r.label_translations).de ?? "");
    if (mine) for (const [k, v] of Object.entries(change.extra ?? {})) out[`items[${i}].${k}`] = v;
  }
  return out;
}

describe("every language names itself", () => {
  it("a t of each language says its own code (label-translations.ts finds the reader's language so)", () => {
    for (const language of supportedLanguages()) expect(languageOf(tFor(language))).toBe(language);
  });
});

describe("a role's label per language", () => {
  it("is created with the role, trimmed, kept as JSON and audited; empty languages are not kept", async () => {
    const admin = await signedIn(["admin"]);
    const out = await post(admin.cookie, {
      intent: "create-role",
      name: "auditor",
      label: "Auditor",
      "translations.de": "  Prüfer  ",
      permissions: ["dashboard.access"],
    });
    expect(out.status, JSON.stringify(out.body)).toBe(302);
    const row = await roleRow("auditor");
    expect(JSON.parse(row.label_translations)).toEqual({ de: "Prüfer" });
    expect((await lastAudit("role.create", row.id)).after).toMatchObject({
      label: "Auditor",
      translations: { de: "Prüfer" },
    });

    const plain = await post(admin.cookie, {
      intent: "create-role",
      name: "plain_role",
      label: "Plain",
      "translations.de": "",
    });
    expect(plain.status).toBe(302);
    expect((await roleRow("plain_role")).label_translations).toBe("{}");
  });

  it("is changed with the matrix: the role's audit row tells before and after; removing it falls back", async () => {
    const admin = await signedIn(["admin"]);
    const auditor = await roleRow("auditor");
    const matrix = (de: string) => ({
      intent: "save-matrix",
      "roles[0].roleId": auditor.id,
      "roles[0].label": "Auditor",
      "roles[0].translations.de": de,
      "roles[0].permissions": ["dashboard.access"],
    });
    const out = await post(admin.cookie, matrix("Rechnungsprüfer"));
    expect(out.status, JSON.stringify(out.body)).toBe(302);
    expect(JSON.parse((await roleRow("auditor")).label_translations)).toEqual({ de: "Rechnungsprüfer" });
    const details = await lastAudit("role.permissions.update", auditor.id);
    expect(details.before.translations).toEqual({ de: "Prüfer" });
    expect(details.after.translations).toEqual({ de: "Rechnungsprüfer" });

    // Only the German label changed: that alone is a change worth saving.
    const cleared = await post(admin.cookie, matrix(""));
    expect(cleared.status).toBe(302);
    expect((await roleRow("auditor")).label_translations).toBe("{}");
  });

  it("refuses bad input with 400 on the field and changes nothing", async () => {
    const admin = await signedIn(["admin"]);
    const auditor = await roleRow("auditor");
    const base = {
      intent: "update-role",
      roleId: auditor.id,
      label: "Auditor",
      permissions: ["dashboard.access"],
    };
    for (const [field, value, errorKey] of [
      ["translations.de", "x".repeat(81), "translations.de"],
      ["translations.de", "Zwei\nZeilen", "translations.de"],
      ["translations.DE!", "Prüfer", "Choose one of the languages offered."],
      // A language the app does not speak: the label would never be shown.
      ["translations.fr", "Auditeur", "translations.fr"],
    ] as const) {
      const out = await post(admin.cookie, { ...base, [field]: value });
      expect(out.status, `${field}=${value}`).toBe(400);
      const errors = JSON.stringify(out.body);
      expect(errors, `${field}=${value}`).toContain(errorKey);
    }
    const nul = await post(admin.cookie, { ...base, "translations.de": "a\u0000b" });
    expect(nul.status).toBe(400);
    expect((await roleRow("auditor")).label_translations).toBe("{}");
  });

  it("needs roles.manage, and the right to edit that role", async () => {
    const auditor = await roleRow("auditor");
    const manager = await signedIn(["manager"]);
    const refused = await post(manager.cookie, {
      intent: "update-role",
      roleId: auditor.id,
      label: "Auditor",
      "translations.de": "Prüfer",
      permissions: ["dashboard.access"],
    });
    expect(refused.status).toBe(403);
    // An admin may not relabel Super Admin in any language.
    const admin = await signedIn(["admin"]);
    const superAdmin = await roleRow("super_admin");
    const fixed = await post(admin.cookie, {
      intent: "update-role",
      roleId: superAdmin.id,
      label: "Super Admin",
      "translations.de": "Chef",
      permissions: [],
    });
    expect(fixed.status).toBe(403);
    expect((await roleRow("auditor")).label_translations).toBe("{}");
    expect((await roleRow("super_admin")).label_translations).toBe("{}");
  });

  it("reaches every page that lists roles: the access page and the users list", async () => {
    const admin = await signedIn(["admin"]);
    const auditor = await roleRow("auditor");
    await db()
      .updateTable("role")
      .set({ label_translations: JSON.stringify({ de: "Prüfer" }) })
      .where("id", "=", auditor.id)
      .execute();
    await invalidateRoles();
    await signedIn(["auditor"]);
    const access = await run(() => loader(args(request("/dashboard/access", { cookie: admin.cookie }))));
    const listed = (access.body as { roles: { name: string; translations: object }[] }).roles;
    expect(listed.find((r) => r.name === "auditor")!.translations).toEqual({ de: "Prüfer" });
    const users = await run(() =>
      usersLoader(args(request("/dashboard/users?role=auditor", { cookie: admin.cookie }))),
    );
    const body = JSON.stringify(users.body);
    expect(body).toContain('"translations":{"de":"Prüfer"}');
  });
});

describe("a menu item's title per language", () => {
  it("is saved with the menu, audited with the item, and reaches the sidebar", async () => {
    const admin = await signedIn(["admin"]);
    const out = await post(
      admin.cookie,
      await menuForm({ url: "/dashboard/logs", title: "Compliance", de: "Prüfpfad" }),
    );
    expect(out.status, JSON.stringify(out.body)).toBe(302);
    const logs = await menuRow("/dashboard/logs");
    expect(logs.title).toBe("Compliance");
    expect(JSON.parse(logs.label_translations)).toEqual({ de: "Prüfpfad" });
    const details = await lastAudit("menu.update", logs.id);
    expect(details.before).toMatchObject({ title: "Audit Logs", translations: {} });
    expect(details.after).toMatchObject({ title: "Compliance", translations: { de: "Prüfpfad" } });
    const root = await run(() => rootLoader(args(request("/dashboard", { cookie: admin.cookie }))));
    const sidebar = (root.body as { sidebar: { url: string; translations: object }[] }).sidebar;
    expect(sidebar.find((s) => s.url === "/dashboard/logs")!.translations).toEqual({ de: "Prüfpfad" });
  });

  it("a change of the German title alone is saved; the single-item form takes it too", async () => {
    const admin = await signedIn(["admin"]);
    const out = await post(admin.cookie, await menuForm({ url: "/dashboard/logs", de: "Protokolle" }));
    expect(out.status).toBe(302);
    expect(JSON.parse((await menuRow("/dashboard/logs")).label_translations)).toEqual({ de: "Protokolle" });
    const teams = await menuRow("/dashboard/teams");
    const one = await post(admin.cookie, {
      intent: "update-menu",
      id: teams.id,
      title: teams.title,
      url: teams.url,
      icon: teams.icon,
      requiredPermission: teams.required_permission,
      "translations.de": "Mannschaften",
    });
    expect(one.status, JSON.stringify(one.body)).toBe(302);
    expect(JSON.parse((await menuRow("/dashboard/teams")).label_translations)).toEqual({
      de: "Mannschaften",
    });
    expect((await lastAudit("menu.update", teams.id)).after.translations).toEqual({ de: "Mannschaften" });
  });

  it("refuses bad input and other people; nothing changes", async () => {
    const admin = await signedIn(["admin"]);
    for (const [de, extra] of [
      ["x".repeat(61), {}],
      ["Tab\there", {}],
      ["", { "translations.xx": "Unbekannt" }],
    ] as const) {
      const out = await post(admin.cookie, await menuForm({ url: "/dashboard/logs", de, extra }));
      expect(out.status, de).toBe(400);
    }
    const manager = await signedIn(["manager"]);
    const refused = await post(manager.cookie, await menuForm({ url: "/dashboard/logs", de: "Fremd" }));
    expect(refused.status).toBe(403);
    expect(JSON.parse((await menuRow("/dashboard/logs")).label_translations)).toEqual({ de: "Protokolle" });
  });

  it("a column edited by hand into something else reads as no translations", async () => {
    expect(readLabelTranslations("not json")).toEqual({});
    expect(readLabelTranslations('{"de": 5}')).toEqual({});
    expect(readLabelTranslations('["de"]')).toEqual({});
    expect(readLabelTranslations('{"de":"Gut"}')).toEqual({ de: "Gut" });
  });
});

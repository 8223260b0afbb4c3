import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { args, createUser, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { formBody, formRequest } from "../../test/support/forms";
import { invalidateSessions } from "../auth/session.server";
import { db } from "../db.server";
import {
  action as settingsAction,
  loader as settingsLoader,
} from "../routes/dashboard.settings.profile/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";

// Settings → Profile → Language: the person's own language, saved as user.locale (null: follow
// the browser), audited, and in force from the very next request (the session cache is dropped).

let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
}, 60_000);
afterAll(() => app?.close());

async function person(roles: string[]) {
  const user = await createUser({ roles });
  return { id: user.id, cookie: await sessionCookieFor(user.id) };
}

const localeOf = async (id: string) =>
  (await db().selectFrom("user").select("locale").where("id", "=", id).executeTakeFirstOrThrow()).locale;

const languageAudits = (id: string) =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("action", "=", "account.language.update")
    .where("target_id", "=", id)
    .orderBy("created_at")
    .execute();

const save = (cookie: string, locale: string) =>
  run(() =>
    settingsAction(
      args(formRequest("/dashboard/settings/profile", { intent: "language", locale }, { cookie })),
    ),
  );

/** Through the whole app, as a browser asking for English: middleware, root loader, the document. */
async function page(cookie: string) {
  const response = await app.fetch("/dashboard/settings/profile", {
    cookie,
    headers: { "Accept-Language": "en-US,en;q=0.9" },
  });
  const html = await response.text();
  expect(response.status, html.slice(0, 3000)).toBe(200);
  return html;
}

const htmlLang = (html: string) => html.match(/<html[^>]*\blang="([^"]+)"/)?.[1];

describe("the language setting", () => {
  it("saving Deutsch: the next request is German although the browser asks for English; Automatic goes back", async () => {
    const me = await person(["user"]);
    expect(htmlLang(await page(me.cookie))).toBe("en");

    const saved = await app.fetch("/dashboard/settings/profile", {
      method: "POST",
      cookie: me.cookie,
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "en" },
      body: formBody({ intent: "language", locale: "de" }),
    });
    expect(saved.status).toBe(200);
    expect(await localeOf(me.id)).toBe("de");

    const german = await page(me.cookie);
    expect(htmlLang(german)).toBe("de");
    expect(german).toContain("Einstellungen</h1>");
    expect(german).toContain("Automatisch (Sprache des Browsers)");
    // Each language is named in itself, and the saved one is selected.
    expect(german).toMatch(/<option value="de" lang="de" selected="">Deutsch<\/option>/);
    expect(german).toContain('<option value="en" lang="en">English</option>');

    const back = await app.fetch("/dashboard/settings/profile", {
      method: "POST",
      cookie: me.cookie,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: formBody({ intent: "language", locale: "" }),
    });
    expect(back.status).toBe(200);
    expect(await localeOf(me.id)).toBeNull();
    const english = await page(me.cookie);
    expect(htmlLang(english)).toBe("en");
    expect(english).toContain("Settings</h1>");
  });

  it("is audited like a name change, with before and after; saving the same again changes nothing", async () => {
    const me = await person(["user"]);
    const first = await save(me.cookie, "de");
    expect(first.status).toBe(200);
    // The answer is in the language just chosen.
    expect(first.body).toMatchObject({
      ok: true,
      intent: "language",
      message: "Ihre Sprache wurde gespeichert.",
    });
    await invalidateSessions();
    const again = await save(me.cookie, "de");
    expect(again.body).toMatchObject({ ok: true, message: "Keine Änderungen." });
    const rows = await languageAudits(me.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_id: me.id, target_type: "user", target_id: me.id });
    expect(JSON.parse(rows[0]!.details as string)).toEqual({ locale: { before: null, after: "de" } });
  });

  it("refuses a language there is no folder for, or no value at all: 400, nothing saved", async () => {
    const me = await person(["user"]);
    for (const locale of ["fr", "xx", "de-DE", "EN", "../en", "d".repeat(30)]) {
      const out = await save(me.cookie, locale);
      expect(out.status, locale).toBe(400);
      expect((out.body as { errors: Record<string, string> }).errors.locale, locale).toBe(
        "Choose one of the languages offered.",
      );
    }
    const missing = await run(() =>
      settingsAction(
        args(formRequest("/dashboard/settings/profile", { intent: "language" }, { cookie: me.cookie })),
      ),
    );
    // No field at all is Automatic, as an empty select sends it.
    expect(missing.status).toBe(200);
    expect(await localeOf(me.id)).toBeNull();
    expect(await languageAudits(me.id)).toEqual([]);
  });

  it("is refused while viewing as someone, like the other account changes; nothing saved", async () => {
    const admin = await person(["super_admin"]);
    const target = await person(["user"]);
    const viewAs = await run(() =>
      userAction(
        args(formRequest(`/dashboard/users/${target.id}`, { intent: "view-as" }, { cookie: admin.cookie }), {
          id: target.id,
        }),
      ),
    );
    expect(viewAs.status).toBe(302);
    const out = await save(admin.cookie, "de");
    expect(out.status).toBe(403);
    expect(await localeOf(target.id)).toBeNull();
    expect(await localeOf(admin.id)).toBeNull();
    expect(await languageAudits(target.id)).toEqual([]);
  });

  it("the page offers every language there is, named in itself, with the saved one", async () => {
    const me = await person(["user"]);
    await db().updateTable("user").set({ locale: "de" }).where("id", "=", me.id).execute();
    await invalidateSessions();
    const out = await run(() =>
      settingsLoader(
        args(
          new Request("http://localhost:3000/dashboard/settings/profile", { headers: { Cookie: me.cookie } }),
        ),
      ),
    );
    expect(out.body).toMatchObject({ languages: ["en", "de"], profile: { locale: "de" } });
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import {
  args,
  context,
  createUser,
  PASSWORD,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
  signedIn,
} from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { RuleViolation } from "../domain-errors";
import { loader as verifyLoader } from "../routes/api.auth.verify-email";
import { loader as menuLoader } from "../routes/dashboard.settings/route";
import {
  action as apiTokensAction,
  loader as apiTokensLoader,
} from "../routes/dashboard.settings.api-tokens/route";
import { action as inviteAction, loader as inviteLoader } from "../routes/dashboard.settings.invite/route";
import { action as profileAction, loader as profileLoader } from "../routes/dashboard.settings.profile/route";
import {
  action as securityAction,
  loader as securityLoader,
} from "../routes/dashboard.settings.security/route";
import { action as systemAction, loader as systemLoader } from "../routes/dashboard.settings.system/route";
import {
  action as webhooksAction,
  loader as webhooksLoader,
} from "../routes/dashboard.settings.webhooks/route";
import { clearSystemConfigCache, getSystemConfig } from "../system-settings/system-config.server";
import { applySettingsChanges } from "./update-settings.server";

// Settings' pages (app/access/settings-pages.ts), each a route of its own under /dashboard/settings/:
// the layout's menu, the index's redirect, and each page's loader and action.

const postmark = withFakePostmark();
let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
}, 60_000);
afterAll(() => app?.close());
beforeEach(async () => {
  await db().deleteFrom("system_setting").execute();
  clearSystemConfigCache();
});

/** The pages with a loader and an action of their own (sso and directory: their own tests). */
const PAGES = {
  profile: { action: profileAction, loader: profileLoader },
  security: { action: securityAction, loader: securityLoader },
  "api-tokens": { action: apiTokensAction, loader: apiTokensLoader },
  invite: { action: inviteAction, loader: inviteLoader },
  system: { action: systemAction, loader: systemLoader },
  webhooks: { action: webhooksAction, loader: webhooksLoader },
};
type Page = keyof typeof PAGES;

/** The page whose action handles each intent this file sends. */
const PAGE_OF: Record<string, Page> = {
  profile: "profile",
  email: "profile",
  password: "security",
  "revoke-session": "security",
  "revoke-others": "security",
  system: "system",
  invite: "invite",
};

function submitTo(page: Page, values: Record<string, string>, cookie?: string) {
  const req = formRequest(`/dashboard/settings/${page}`, values, { cookie });
  return run(() => PAGES[page].action(args(req)));
}

function submit(values: Record<string, string>, cookie?: string) {
  const page = PAGE_OF[values.intent ?? ""];
  if (!page) throw new Error(`no page for intent ${values.intent}`);
  return submitTo(page, values, cookie);
}

const open = (page: Page, cookie: string) =>
  run(() => PAGES[page].loader(args(request(`/dashboard/settings/${page}`, { cookie }))));
const menuOf = (cookie: string) =>
  run(() => menuLoader(args(request("/dashboard/settings/profile", { cookie }))));

const settingsRows = () => db().selectFrom("system_setting").selectAll().execute();
const audits = (actor: string) =>
  db().selectFrom("audit_log").selectAll().where("actor_id", "=", actor).execute();

describe("system settings", () => {
  it("redirects a signed-out visitor to /login and changes nothing", async () => {
    const out = await submit({ intent: "system", APP_NAME: "Hacked" });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
    expect(await settingsRows()).toEqual([]);
  });

  it("403 for users without settings.manage (and guests without dashboard.access); nothing changed", async () => {
    for (const roles of [["user"], ["manager"], ["guest"]]) {
      const u = await signedIn(roles);
      const out = await submit(
        { intent: "system", APP_NAME: "Hacked", MAIL_API_KEY: "stolen-key-123456" },
        u.cookie,
      );
      expect(out.status).toBe(403);
    }
    expect(await settingsRows()).toEqual([]);
  });

  it("the domain refuses a caller without settings.manage too, whoever calls it; nothing changed", async () => {
    const u = await signedIn(["manager"]);
    const actor = (await getSessionUser(args(request("/", { cookie: u.cookie }))))!;
    await expect(
      applySettingsChanges(
        actor,
        { changes: [{ kind: "set", key: "APP_NAME", value: "Hacked" }] },
        {
          request: request("/dashboard/settings/system"),
          context: context(),
        },
      ),
    ).rejects.toBeInstanceOf(RuleViolation);
    expect(await settingsRows()).toEqual([]);
  });

  it("400 with field errors for bad values; nothing changed", async () => {
    const admin = await signedIn(["admin"]);
    const out = await submit(
      { intent: "system", APP_NAME: "Fine", EMAIL_FROM: "nope", MAIL_API_KEY: "short" },
      admin.cookie,
    );
    expect(out.status).toBe(400);
    expect(Object.keys((out.body as { errors: object }).errors).sort()).toEqual([
      "EMAIL_FROM",
      "MAIL_API_KEY",
    ]);
    expect(await settingsRows()).toEqual([]);
  });

  it("refuses a sender with a line break or another control character (header injection); nothing changed", async () => {
    const admin = await signedIn(["admin"]);
    for (const from of [
      "Acme\r\nBcc: victim@example.test <ops@acme.test>",
      "ops@acme.test\r\nBcc: victim@example.test",
      "Acme\n <ops@acme.test>",
      "Acme\u0000 <ops@acme.test>",
      "Acme <ops@acme.test> <other@acme.test>",
    ]) {
      const out = await submit({ intent: "system", APP_NAME: "Fine", EMAIL_FROM: from }, admin.cookie);
      expect(out.status, JSON.stringify(from)).toBe(400);
      // NUL never reaches the field check: readForm refuses such a form as a whole.
      const body = out.body as { errors?: Record<string, string>; message?: string };
      expect(from.includes("\u0000") ? body.message : body.errors?.EMAIL_FROM).toBeTruthy();
    }
    expect(await settingsRows()).toEqual([]);
  });

  it("saves, keeps a secret on blank, audits before/after without the secret, and resets to the environment", async () => {
    // The mail key and sender route account mail: a super admin with the password (mail-routing.test.ts).
    const admin = await signedIn(["super_admin"]);
    const key = "pm-live-token-abcdef123456";
    const out = await submit(
      {
        intent: "system",
        APP_NAME: "Acme Admin",
        EMAIL_FROM: "Acme <ops@acme.test>",
        MAIL_API_KEY: key,
        currentPassword: PASSWORD,
      },
      admin.cookie,
    );
    expect(out.status).toBe(200);
    // Staff read the settings' labels, never their keys.
    expect((out.body as { message: string }).message).toBe(
      "Saved: Mail API key (Postmark server token), Sender address, Application name.",
    );
    expect((out.body as { message: string }).message).not.toMatch(/APP_NAME|EMAIL_FROM|MAIL_API_KEY/);
    expect(await getSystemConfig("APP_NAME")).toBe("Acme Admin");
    expect(await getSystemConfig("MAIL_API_KEY")).toBe(key);

    // Blank secret keeps the stored key.
    await submit(
      { intent: "system", APP_NAME: "Acme Admin", EMAIL_FROM: "Acme <ops@acme.test>", MAIL_API_KEY: "" },
      admin.cookie,
    );
    expect(await getSystemConfig("MAIL_API_KEY")).toBe(key);

    const rows = await audits(admin.id);
    const update = rows.find((r) => r.action === "settings.update")!;
    expect(update.details).not.toContain(key);
    expect(JSON.parse(update.details!)).toMatchObject({
      changedKeys: ["MAIL_API_KEY", "EMAIL_FROM", "APP_NAME"],
      changes: { APP_NAME: { before: "Admin Dashboard", after: "Acme Admin" } },
    });
    expect(rows.filter((r) => r.action === "settings.update")).toHaveLength(1);

    // The page shows the secret only as a hint.
    const page = await open("system", admin.cookie);
    expect(JSON.stringify(page.body)).not.toContain(key);
    expect(JSON.stringify(page.body)).toContain("…3456");

    const reset = await submit({ intent: "system", reset: "APP_NAME" }, admin.cookie);
    expect(reset.status).toBe(200);
    expect(await getSystemConfig("APP_NAME", "From Env")).toBe("From Env");
    expect((await audits(admin.id)).some((r) => r.action === "settings.reset")).toBe(true);
  });

  it("shows no system section to users without settings.manage", async () => {
    const user = await signedIn(["user"]);
    // Neither in the menu nor behind the address: the system and invite pages answer 403.
    expect((await menuOf(user.cookie)).body).toEqual({
      account: ["profile", "security", "api-tokens"],
      workspace: [],
    });
    expect((await open("system", user.cookie)).status).toBe(403);
    expect((await open("invite", user.cookie)).status).toBe(403);
    const page = await open("profile", user.cookie);
    expect(page.body).toMatchObject({ profile: { email: user.email } });
  });
});

describe("personal settings", () => {
  it("changes the name, and refuses a blank one", async () => {
    const u = await signedIn(["user"]);
    expect((await submit({ intent: "profile", name: "  " }, u.cookie)).status).toBe(400);
    expect((await submit({ intent: "profile", name: "New Name" }, u.cookie)).status).toBe(200);
    const row = await db().selectFrom("user").select("name").where("id", "=", u.id).executeTakeFirstOrThrow();
    expect(row.name).toBe("New Name");
  });

  it("changes the password only with the current one, and signs out the other sessions", async () => {
    const u = await signedIn(["user"]);
    const other = await sessionCookieFor(u.id);
    const wrong = await submit(
      {
        intent: "password",
        currentPassword: "wrong",
        newPassword: "another good phrase",
        confirm: "another good phrase",
      },
      u.cookie,
    );
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).not.toContain("another good phrase");
    const ok = await submit(
      {
        intent: "password",
        currentPassword: PASSWORD,
        newPassword: "another good phrase",
        confirm: "another good phrase",
      },
      u.cookie,
    );
    expect(ok.status).toBe(200);
    const sessions = await db().selectFrom("session").select("id").where("user_id", "=", u.id).execute();
    expect(sessions).toHaveLength(1);
    expect((await open("security", other)).status).toBe(302);
  });

  describe("a password change the access gate demanded", () => {
    const change = (cookie: string, redirectTo?: string) =>
      submit(
        {
          intent: "password",
          currentPassword: PASSWORD,
          newPassword: "another good phrase",
          confirm: "another good phrase",
          ...(redirectTo === undefined ? {} : { redirectTo }),
        },
        cookie,
      );
    async function temporary() {
      const u = await signedIn(["user"]);
      await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", u.id).execute();
      return u;
    }

    it("goes where the person was headed, with the confirmation as a toast", async () => {
      const u = await temporary();
      const out = await change(u.cookie, "/dashboard/teams?q=ops");
      expect(out.status).toBe(302);
      expect(out.headers.get("Location")).toBe("/dashboard/teams?q=ops");
      expect(out.headers.get("Set-Cookie")).toContain("__flash=");
      const row = await db()
        .selectFrom("user")
        .select("must_change_password")
        .where("id", "=", u.id)
        .executeTakeFirstOrThrow();
      expect(row.must_change_password).toBe(0);
    });

    it("goes to the dashboard when no page or another site is named (never an open redirect)", async () => {
      for (const target of [undefined, "https://evil.example/", "//evil.example/x", "/api/tasks"]) {
        const u = await temporary();
        const out = await change(u.cookie, target);
        expect(out.headers.get("Location"), String(target)).toBe("/dashboard");
      }
    });

    it("a wrong current password changes nothing and goes nowhere", async () => {
      const u = await temporary();
      const out = await submit(
        {
          intent: "password",
          currentPassword: "wrong",
          newPassword: "another good phrase",
          confirm: "another good phrase",
          redirectTo: "/dashboard/teams",
        },
        u.cookie,
      );
      expect(out.status).toBe(400);
    });

    it("a change nobody demanded stays on Settings, whatever the form names", async () => {
      const u = await signedIn(["user"]);
      const out = await change(u.cookie, "/dashboard/teams");
      expect(out.status).toBe(200);
      expect(out.headers.get("Location")).toBeNull();
    });
  });

  it("lists sessions by handle and signs out one, or all others, but never the current one", async () => {
    const u = await signedIn(["user"]);
    await sessionCookieFor(u.id);
    await sessionCookieFor(u.id);
    const page = await open("security", u.cookie);
    const sessions = (page.body as { sessions: { id: string; current: boolean }[] }).sessions;
    expect(sessions).toHaveLength(3);
    const ids = (await db().selectFrom("session").select("id").where("user_id", "=", u.id).execute()).map(
      (s) => s.id,
    );
    for (const s of sessions) expect(ids).not.toContain(s.id);
    // Parsed on the server: the page gets words, not a user agent to make sense of.
    await db()
      .updateTable("session")
      .set({
        user_agent:
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
        last_seen_at: new Date(Date.now() - 5 * 60_000 - 1_000).toISOString(),
      })
      .where("user_id", "=", u.id)
      .execute();
    const described = await open("security", u.cookie);
    expect((described.body as { sessions: unknown[] }).sessions).toContainEqual(
      expect.objectContaining({ device: "Chrome on macOS", lastUsed: "5 minutes ago", current: false }),
    );
    const current = sessions.find((s) => s.current)!;
    expect((await submit({ intent: "revoke-session", session: current.id }, u.cookie)).body).toMatchObject({
      message: /already ended/,
    });
    await submit({ intent: "revoke-session", session: sessions.find((s) => !s.current)!.id }, u.cookie);
    expect(await db().selectFrom("session").select("id").where("user_id", "=", u.id).execute()).toHaveLength(
      2,
    );
    await submit({ intent: "revoke-others" }, u.cookie);
    expect(await db().selectFrom("session").select("id").where("user_id", "=", u.id).execute()).toHaveLength(
      1,
    );
  });

  it("changes the email only after the link sent to the new address is followed", async () => {
    const u = await signedIn(["user"]);
    const taken = await createUser();
    expect(
      (await submit({ intent: "email", email: taken.email, currentPassword: PASSWORD }, u.cookie)).status,
    ).toBe(400);
    expect(
      (await submit({ intent: "email", email: "new@example.test", currentPassword: "wrong" }, u.cookie))
        .status,
    ).toBe(400);
    const out = await submit(
      { intent: "email", email: "New@Example.test", currentPassword: PASSWORD },
      u.cookie,
    );
    expect(out.status).toBe(200);
    let row = await db().selectFrom("user").select("email").where("id", "=", u.id).executeTakeFirstOrThrow();
    expect(row.email).toBe(u.email);
    const link = linkIn(
      postmark.fake.messages.find((m) => m.To === "new@example.test")?.TextBody,
      "/api/auth/verify-email?token=",
    );
    const verified = await run(() => verifyLoader(args(request(link.replace(/^https?:\/\/[^/]+/, "")))));
    expect(verified.status).toBe(302);
    row = await db().selectFrom("user").select("email").where("id", "=", u.id).executeTakeFirstOrThrow();
    expect(row.email).toBe("new@example.test");
  });

  it("lets holders of user.write invite, and no one else", async () => {
    const user = await signedIn(["user"]);
    expect(
      (await submit({ intent: "invite", email: "i@example.test", roles: "x" }, user.cookie)).status,
    ).toBe(403);
    const admin = await signedIn(["admin"]);
    const page = await open("invite", admin.cookie);
    const roles = (page.body as { roles: { id: string; name: string }[] }).roles;
    expect(roles.map((r) => r.name)).not.toContain("super_admin");
    expect((await submit({ intent: "invite", email: "i@example.test" }, admin.cookie)).status).toBe(400);
    const userRole = roles.find((r) => r.name === "user")!;
    const out = await submit({ intent: "invite", email: "i@example.test", roles: userRole.id }, admin.cookie);
    expect(out.status).toBe(200);
    expect(postmark.fake.messages.filter((m) => m.To === "i@example.test")).toHaveLength(1);
  });

  it("rejects an unknown intent with 400", async () => {
    const u = await signedIn(["user"]);
    for (const page of ["profile", "security", "api-tokens"] as const)
      expect((await submitTo(page, { intent: "drop-tables" }, u.cookie)).status, page).toBe(400);
  });
});

describe("the pages and their menu", () => {
  const ALL = [
    "profile",
    "security",
    "api-tokens",
    "invite",
    "system",
    "email-templates",
    "webhooks",
    "sso",
    "directory",
  ];

  /** The seeded super admin (test/database-template.ts), signed in afresh. */
  async function root() {
    const row = await db()
      .selectFrom("user")
      .select("id")
      .where("email", "=", "root@example.test")
      .executeTakeFirstOrThrow();
    return { id: row.id, cookie: await sessionCookieFor(row.id) };
  }

  /** The links of the layout's menu in a page as served: `<nav aria-label="Settings pages">`. */
  function menuLinks(html: string) {
    const nav = html.match(/<nav[^>]*aria-label="Settings pages"[^>]*>([\s\S]*?)<\/nav>/)?.[1];
    if (nav === undefined) throw new Error(`no settings menu in: ${html.slice(0, 2000)}`);
    return [...nav.matchAll(/href="\/dashboard\/settings\/([^"#?]+)"/g)].map((m) => m[1]);
  }

  it("every page answers 200 to the seeded super admin through the whole app, its menu listing all nine", async () => {
    const { cookie } = await root();
    for (const page of ALL) {
      const res = await app.fetch(`/dashboard/settings/${page}`, { cookie });
      const html = await res.text();
      expect(res.status, `${page}: ${html.slice(0, 500)}`).toBe(200);
      expect(menuLinks(html), page).toEqual(ALL);
    }
  });

  it("/dashboard/settings opens Profile; ?section= opens that page only for whom it is in the menu", async () => {
    const { cookie } = await root();
    const user = await signedIn(["user"]);
    const goes = async (path: string, who: string) => {
      const res = await app.fetch(path, { cookie: who });
      expect(res.status, path).toBe(302);
      return res.headers.get("Location");
    };
    expect(await goes("/dashboard/settings", cookie)).toBe("/dashboard/settings/profile");
    expect(await goes("/dashboard/settings", user.cookie)).toBe("/dashboard/settings/profile");
    expect(await goes("/dashboard/settings?section=webhooks", cookie)).toBe("/dashboard/settings/webhooks");
    expect(await goes("/dashboard/settings?section=security", user.cookie)).toBe(
      "/dashboard/settings/security",
    );
    for (const section of ["webhooks", "system", "invite", "sso", "directory", "nonsense", ""])
      expect(await goes(`/dashboard/settings?section=${section}`, user.cookie), section).toBe(
        "/dashboard/settings/profile",
      );
  });

  it("a person with the user role sees their account's pages only; a super admin all nine", async () => {
    const user = await signedIn(["user"]);
    expect((await menuOf(user.cookie)).body).toEqual({
      account: ["profile", "security", "api-tokens"],
      workspace: [],
    });
    const res = await app.fetch("/dashboard/settings/profile", { cookie: user.cookie });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(menuLinks(html)).toEqual(["profile", "security", "api-tokens"]);
    // No "Workspace" group without a page in it.
    expect(html).toContain(">Your account</h2>");
    expect(html).not.toContain(">Workspace</h2>");

    const { cookie } = await root();
    expect((await menuOf(cookie)).body).toEqual({
      account: ["profile", "security", "api-tokens"],
      workspace: ["invite", "system", "email-templates", "webhooks", "sso", "directory"],
    });
  });

  it("the system, webhooks and invite pages answer 403 to the user role, loader and action; nothing changes", async () => {
    await db().deleteFrom("webhook_endpoint").execute();
    const user = await signedIn(["user"]);
    const mailsBefore = postmark.fake.messages.length;
    const attempts: [Page, Record<string, string>][] = [
      ["system", { intent: "system", APP_NAME: "Hacked" }],
      ["webhooks", { intent: "webhook-create", url: "https://example.com/in", events: "*" }],
      ["invite", { intent: "invite", email: "sneaky@example.test", roles: "x" }],
    ];
    for (const [page, values] of attempts) {
      expect((await open(page, user.cookie)).status, page).toBe(403);
      expect((await submitTo(page, values, user.cookie)).status, page).toBe(403);
      // Through the whole app too: the document, its data, and the form post.
      expect((await app.fetch(`/dashboard/settings/${page}`, { cookie: user.cookie })).status, page).toBe(
        403,
      );
      const post = await app.fetch(`/dashboard/settings/${page}`, {
        method: "POST",
        cookie: user.cookie,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(values).toString(),
      });
      expect(post.status, page).toBe(403);
    }
    expect(await settingsRows()).toEqual([]);
    expect(await db().selectFrom("webhook_endpoint").selectAll().execute()).toEqual([]);
    expect(postmark.fake.messages.slice(mailsBefore)).toEqual([]);
  });

  it("an intent sent to another page than its own answers 400 and changes nothing", async () => {
    const { id, cookie } = await root();
    const nameBefore = await db()
      .selectFrom("user")
      .select(["name", "password_hash"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    const mailsBefore = postmark.fake.messages.length;
    const misplaced: [Page, Record<string, string>][] = [
      ["profile", { intent: "system", APP_NAME: "Wrong Page" }],
      ["security", { intent: "system", APP_NAME: "Wrong Page" }],
      ["webhooks", { intent: "system", APP_NAME: "Wrong Page" }],
      ["system", { intent: "profile", name: "Wrong Page" }],
      ["profile", { intent: "invite", email: "wrong-page@example.test", roles: "x" }],
      [
        "profile",
        {
          intent: "password",
          currentPassword: PASSWORD,
          newPassword: "a wrong page phrase",
          confirm: "a wrong page phrase",
        },
      ],
      ["system", { intent: "webhook-create", url: "https://example.com/in", events: "*" }],
    ];
    for (const [page, values] of misplaced) {
      const out = await submitTo(page, values, cookie);
      expect(out.status, `${values.intent} to ${page}`).toBe(400);
      expect(out.body, `${values.intent} to ${page}`).toMatchObject({
        ok: false,
        formError: "Unknown action.",
      });
    }
    // Through the whole app: the profile page's form post.
    const post = await app.fetch("/dashboard/settings/profile", {
      method: "POST",
      cookie,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "system", APP_NAME: "Wrong Page" }).toString(),
    });
    expect(post.status).toBe(400);
    expect(await settingsRows()).toEqual([]);
    expect(await getSystemConfig("APP_NAME")).not.toBe("Wrong Page");
    expect(
      await db()
        .selectFrom("user")
        .select(["name", "password_hash"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow(),
    ).toEqual(nameBefore);
    expect(await db().selectFrom("webhook_endpoint").selectAll().execute()).toEqual([]);
    expect(postmark.fake.messages.slice(mailsBefore)).toEqual([]);
  });
});

import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  args,
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
import { db } from "../db.server";
import { loader as verifyLoader } from "../routes/api.auth.verify-email";
import { action, loader } from "../routes/dashboard.settings";
import { clearSystemConfigCache, getSystemConfig } from "../system-settings/system-config.server";

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(async () => {
  await db().deleteFrom("system_setting").execute();
  clearSystemConfigCache();
});

function submit(values: Record<string, string>, cookie?: string) {
  const req = formRequest("/dashboard/settings", values, { cookie });
  return run(() => action(args(req)));
}

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
    const page = await run(() => loader(args(request("/dashboard/settings", { cookie: admin.cookie }))));
    expect(JSON.stringify(page.body)).not.toContain(key);
    expect(JSON.stringify(page.body)).toContain("…3456");

    const reset = await submit({ intent: "system", reset: "APP_NAME" }, admin.cookie);
    expect(reset.status).toBe(200);
    expect(await getSystemConfig("APP_NAME", "From Env")).toBe("From Env");
    expect((await audits(admin.id)).some((r) => r.action === "settings.reset")).toBe(true);
  });

  it("shows no system section to users without settings.manage", async () => {
    const user = await signedIn(["user"]);
    const page = await run(() => loader(args(request("/dashboard/settings", { cookie: user.cookie }))));
    expect(page.body).toMatchObject({ system: null, invite: null, profile: { email: user.email } });
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
    expect((await run(() => loader(args(request("/dashboard/settings", { cookie: other }))))).status).toBe(
      302,
    );
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
    const page = await run(() => loader(args(request("/dashboard/settings", { cookie: u.cookie }))));
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
    const described = await run(() => loader(args(request("/dashboard/settings", { cookie: u.cookie }))));
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
    const page = await run(() => loader(args(request("/dashboard/settings", { cookie: admin.cookie }))));
    const roles = (page.body as { invite: { roles: { id: string; name: string }[] } }).invite.roles;
    expect(roles.map((r) => r.name)).not.toContain("super_admin");
    expect((await submit({ intent: "invite", email: "i@example.test" }, admin.cookie)).status).toBe(400);
    const userRole = roles.find((r) => r.name === "user")!;
    const out = await submit({ intent: "invite", email: "i@example.test", roles: userRole.id }, admin.cookie);
    expect(out.status).toBe(200);
    expect(postmark.fake.messages.filter((m) => m.To === "i@example.test")).toHaveLength(1);
  });

  it("rejects an unknown intent with 400", async () => {
    const u = await signedIn(["user"]);
    expect((await submit({ intent: "drop-tables" }, u.cookie)).status).toBe(400);
  });
});

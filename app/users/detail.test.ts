import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  args,
  createUser,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
  signedIn,
} from "../../test/helpers";
import { createApiToken } from "../auth/api-tokens.server";
import { db, now } from "../db.server";
import { loader } from "../routes/dashboard.users.$id/route";

beforeAll(setupDatabase);

type Page = { sessions: { ip: string | null }[] | null; audit: unknown[] | null };

async function pageOf(viewerCookie: string, userId: string) {
  const out = await run(() =>
    loader(args(request(`/dashboard/users/${userId}`, { cookie: viewerCookie }), { id: userId })),
  );
  expect(out.status).toBe(200);
  return out.body as Page;
}

/** Someone with a session from a known IP and an audit row about them. */
async function target() {
  const user = await createUser({ roles: ["user"] });
  await sessionCookieFor(user.id); // the helper's context gives the session IP 203.0.113.7
  await db()
    .insertInto("audit_log")
    .values({
      id: randomUUID(),
      actor_id: user.id,
      actor_email: user.email,
      action: "auth.login",
      target_type: "user",
      target_id: user.id,
      details: null,
      ip: "198.51.100.23",
      user_agent: null,
      created_at: now(),
    })
    .execute();
  return user;
}

describe("user page: sessions and IPs", () => {
  it("are hidden from a manager (user.read without log.read)", async () => {
    const someone = await target();
    const manager = await signedIn(["manager"]);
    const page = await pageOf(manager.cookie, someone.id);
    expect(page.sessions).toBeNull();
    expect(page.audit).toBeNull();
    const text = JSON.stringify(page);
    expect(text).not.toContain("203.0.113.7");
    expect(text).not.toContain("198.51.100.23");
  });

  it("are shown to an admin (log.read)", async () => {
    const someone = await target();
    const admin = await signedIn(["admin"]);
    const page = await pageOf(admin.cookie, someone.id);
    expect(page.sessions).toEqual([expect.objectContaining({ ip: "203.0.113.7" })]);
    expect(page.audit).toHaveLength(1);
  });

  it("shows an account its own sessions, but not the audit trail it lacks log.read for", async () => {
    const manager = await signedIn(["manager"]);
    const page = await pageOf(manager.cookie, manager.id);
    expect(page.sessions?.length).toBe(1);
    expect(page.audit).toBeNull();
  });
});

describe("user page: in words", () => {
  const MAC_CHROME =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

  it("says a session's device as Settings does, and keeps the raw user agent on the server", async () => {
    const someone = await target();
    await db()
      .updateTable("session")
      .set({ user_agent: MAC_CHROME })
      .where("user_id", "=", someone.id)
      .execute();
    const admin = await signedIn(["admin"]);
    const page = (await pageOf(admin.cookie, someone.id)) as unknown as { sessions: { device: string }[] };
    expect(page.sessions.map((s) => s.device)).toEqual(["Chrome on macOS"]);
    expect(JSON.stringify(page)).not.toContain("AppleWebKit");
  });

  it("a session without a user agent is an unknown browser, not an empty line", async () => {
    const someone = await target();
    await db().updateTable("session").set({ user_agent: null }).where("user_id", "=", someone.id).execute();
    const admin = await signedIn(["admin"]);
    const page = (await pageOf(admin.cookie, someone.id)) as unknown as { sessions: { device: string }[] };
    expect(page.sessions.map((s) => s.device)).toEqual(["Unknown browser"]);
  });
});

describe("user page: API tokens", () => {
  type TokenPage = { apiTokens: { id: string; name: string; lastUsedAt: string | null }[] | null };

  async function tokenOf(userId: string, name: string) {
    const owner = await db()
      .selectFrom("user")
      .select(["id", "email"])
      .where("id", "=", userId)
      .executeTakeFirstOrThrow();
    const { id } = await createApiToken(
      { ...owner, isSuperAdmin: true, permissions: new Set<string>() },
      { name, expiresInDays: 30, permissions: ["dashboard.access"] },
      { request: request("/") },
    );
    await db()
      .updateTable("api_token")
      .set({ last_used_at: "2026-01-02T03:04:05.000Z" })
      .where("id", "=", id)
      .execute();
    return id;
  }

  it("a super admin's are not in the page's data for an admin with user.update, only for super admins", async () => {
    const root = await createUser({ roles: ["super_admin"] });
    const name = `deploy-${randomUUID()}`;
    const id = await tokenOf(root.id, name);
    const admin = await signedIn(["admin"]);
    const seen = (await pageOf(admin.cookie, root.id)) as unknown as TokenPage;
    expect(seen.apiTokens).toBeNull();
    const text = JSON.stringify(seen);
    expect(text).not.toContain(name);
    expect(text).not.toContain(id);
    expect(text).not.toContain("2026-01-02T03:04:05.000Z");

    const otherRoot = await signedIn(["super_admin"]);
    const shown = (await pageOf(otherRoot.cookie, root.id)) as unknown as TokenPage;
    expect(shown.apiTokens).toEqual([
      expect.objectContaining({ id, name, lastUsedAt: "2026-01-02T03:04:05.000Z" }),
    ]);
  });

  it("an ordinary account's are shown to an admin with user.update, and to nobody without it", async () => {
    const someone = await createUser({ roles: ["user"] });
    const id = await tokenOf(someone.id, "script");
    const admin = await signedIn(["admin"]);
    expect(((await pageOf(admin.cookie, someone.id)) as unknown as TokenPage).apiTokens).toEqual([
      expect.objectContaining({ id, name: "script" }),
    ]);
    const manager = await signedIn(["manager"]);
    expect(((await pageOf(manager.cookie, someone.id)) as unknown as TokenPage).apiTokens).toBeNull();
  });
});

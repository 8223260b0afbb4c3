import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  args,
  context,
  createUser,
  PASSWORD,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
} from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { describeAuditRows } from "../audit/view.server";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";
import { openStreamCount } from "../events/stream.server";
import { loader as rootLoader } from "../root";
import { loader as eventsLoader } from "../routes/api.events";
import { action as profileAction } from "../routes/dashboard.settings.profile/route";
import { action as securityAction } from "../routes/dashboard.settings.security/route";
import { action as userAction, loader as userLoader } from "../routes/dashboard.users.$id/route";
import { action as stopAction } from "../routes/impersonation.stop";
import { action as logoutAction } from "../routes/logout";
import { refuseWhileImpersonating } from "./guard.server";
import { IMPERSONATION_MINUTES } from "./impersonation-state.server";
import { getSessionUser, invalidateSessions } from "./session.server";

beforeAll(setupDatabase);
afterEach(() => {
  vi.useRealTimers();
});

type Person = { id: string; email: string; cookie: string };

async function person(roles: string[], opts: { status?: "active" | "disabled" } = {}): Promise<Person> {
  const user = await createUser({ roles, ...opts });
  return { id: user.id, email: user.email, cookie: await sessionCookieFor(user.id) };
}

const whoIs = (cookie: string) =>
  getSessionUser({ request: request("/dashboard", { cookie }), context: context() });

function viewAs(actor: Person, targetId: string) {
  const req = formRequest(`/dashboard/users/${targetId}`, { intent: "view-as" }, { cookie: actor.cookie });
  return run(() => userAction(args(req, { id: targetId })));
}

function stop(cookie: string) {
  return run(() => stopAction(args(formRequest("/impersonation/stop", {}, { cookie }))));
}

/** The intent's Settings page: Profile's (profile, language, email) or Security's (the rest used here). */
function settings(cookie: string, fields: Record<string, string>) {
  const profile = ["profile", "language", "email"].includes(fields.intent ?? "");
  const { path, action } = profile
    ? { path: "/dashboard/settings/profile", action: profileAction }
    : { path: "/dashboard/settings/security", action: securityAction };
  return run(() => action(args(formRequest(path, fields, { cookie }))));
}

/** Everything a refused request could have changed: users, sessions, tokens, audit rows. */
async function snapshot() {
  const [users, sessions, tokens, audit] = await Promise.all([
    db().selectFrom("user").selectAll().orderBy("id").execute(),
    db().selectFrom("session").selectAll().orderBy("id").execute(),
    db().selectFrom("user_token").selectAll().orderBy("id").execute(),
    db().selectFrom("audit_log").select(["id"]).orderBy("id").execute(),
  ]);
  return { users, sessions, tokens, audit };
}

const auditOf = (action: string, targetId: string) =>
  db()
    .selectFrom("audit_log")
    .selectAll()
    .where("action", "=", action)
    .where("target_id", "=", targetId)
    .orderBy("created_at", "desc")
    .execute();

describe("View as: starting", () => {
  it("a super admin's requests then resolve as the target, with the super admin as impersonator", async () => {
    const admin = await person(["super_admin"]);
    const target = await person(["manager"]);
    const out = await viewAs(admin, target.id);
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard");

    const me = await whoIs(admin.cookie);
    expect(me).toMatchObject({ id: target.id, email: target.email, roles: ["manager"], isSuperAdmin: false });
    expect(me?.impersonator).toMatchObject({ id: admin.id, email: admin.email });
    expect(me?.permissions.has("roles.manage")).toBe(false);
    // The view ends within 30 minutes; the event stream closes then too.
    const until = Date.parse(me!.impersonator!.until!);
    expect(until - Date.now()).toBeLessThanOrEqual(IMPERSONATION_MINUTES * 60_000);
    expect(until - Date.now()).toBeGreaterThan((IMPERSONATION_MINUTES - 1) * 60_000);
    expect(Date.parse(me!.sessionExpiresAt)).toBe(until);
    // Every page's shell gets the banner's data from the root loader.
    const root = await run(() => rootLoader(args(request("/dashboard", { cookie: admin.cookie }))));
    expect((root.body as { user: { impersonation: unknown } }).user.impersonation).toEqual({
      by: admin.email,
      until: me!.impersonator!.until,
    });
    // The target's own session is untouched.
    expect((await whoIs(target.cookie))?.impersonator).toBeNull();

    const [row] = await auditOf("impersonation.start", target.id);
    expect(row).toMatchObject({ actor_id: admin.id, actor_email: admin.email, impersonator_id: null });
  });

  it("the user page offers it only to a super admin, for an active non-super-admin other than themselves", async () => {
    const admin = await person(["super_admin"]);
    const other = await person(["super_admin"]);
    const plain = await person(["user"]);
    const off = await person(["user"], { status: "disabled" });
    const manager = await person(["admin"]);
    const may = async (viewer: Person, id: string) => {
      const out = await run(() =>
        userLoader(args(request(`/dashboard/users/${id}`, { cookie: viewer.cookie }), { id })),
      );
      return (out.body as { may: { viewAs: boolean } }).may.viewAs;
    };
    expect(await may(admin, plain.id)).toBe(true);
    expect(await may(admin, other.id)).toBe(false);
    expect(await may(admin, admin.id)).toBe(false);
    expect(await may(admin, off.id)).toBe(false);
    expect(await may(manager, plain.id)).toBe(false);
  });

  const refusals: [string, () => Promise<{ actor: Person; targetId: string; status: number }>][] = [
    [
      "someone who is not a super admin (an admin holding user.update)",
      async () => ({ actor: await person(["admin"]), targetId: (await person(["user"])).id, status: 403 }),
    ],
    [
      "another super admin as the target",
      async () => ({
        actor: await person(["super_admin"]),
        targetId: (await person(["super_admin"])).id,
        status: 403,
      }),
    ],
    [
      "themselves",
      async () => {
        const actor = await person(["super_admin"]);
        return { actor, targetId: actor.id, status: 403 };
      },
    ],
    [
      "a disabled account",
      async () => ({
        actor: await person(["super_admin"]),
        targetId: (await person(["user"], { status: "disabled" })).id,
        status: 403,
      }),
    ],
    [
      "an account that cannot open the dashboard (guest)",
      async () => ({
        actor: await person(["super_admin"]),
        targetId: (await person(["guest"])).id,
        status: 403,
      }),
    ],
    [
      "an account that does not exist",
      async () => ({ actor: await person(["super_admin"]), targetId: crypto.randomUUID(), status: 404 }),
    ],
  ];
  it.each(refusals)("refuses %s, database unchanged", async (_label, make) => {
    const { actor, targetId, status } = await make();
    const before = await snapshot();
    const out = await viewAs(actor, targetId);
    expect(out.status).toBe(status);
    expect(await snapshot()).toEqual(before);
    expect((await whoIs(actor.cookie))?.id).toBe(actor.id);
  });

  it("refuses starting another View as while viewing as someone, database unchanged", async () => {
    const admin = await person(["super_admin"]);
    const first = await person(["admin"]);
    const second = await person(["user"]);
    await viewAs(admin, first.id);
    const before = await snapshot();
    // The account viewed as holds user.read, so the page itself is open: the rule refuses.
    const out = await viewAs(admin, second.id);
    expect(out.status).toBe(403);
    expect(await snapshot()).toEqual(before);
    expect((await whoIs(admin.cookie))?.id).toBe(first.id);
  });
});

describe("View as: what stays locked", () => {
  let admin: Person;
  let target: Person;
  beforeAll(async () => {
    admin = await person(["super_admin"]);
    target = await person(["user"]);
    await sessionCookieFor(target.id); // a second session of the target, which "revoke others" would end
    await viewAs(admin, target.id);
  });

  const locked: [string, Record<string, string>][] = [
    [
      "password change",
      {
        intent: "password",
        currentPassword: PASSWORD,
        newPassword: "a brand new passphrase",
        confirm: "a brand new passphrase",
      },
    ],
    ["email change", { intent: "email", email: "elsewhere@example.test", currentPassword: PASSWORD }],
    ["signing out the other sessions", { intent: "revoke-others" }],
    ["signing out one session", { intent: "revoke-session", session: "abcdef" }],
  ];
  it.each(locked)("%s is refused (403), database unchanged", async (_label, fields) => {
    const before = await snapshot();
    const out = await settings(admin.cookie, fields);
    expect(out.status).toBe(403);
    expect(JSON.stringify(out.body)).toContain("viewing as another person");
    expect(await snapshot()).toEqual(before);
  });

  it("the viewed account's own user page (email, sessions, reset link) is refused too, database unchanged", async () => {
    const boss = await person(["super_admin"]);
    const manager = await person(["admin"]); // holds user.update, so the page's own rules would allow it
    await viewAs(boss, manager.id);
    const onOwnPage = (fields: Record<string, string>) =>
      run(() =>
        userAction(
          args(formRequest(`/dashboard/users/${manager.id}`, fields, { cookie: boss.cookie }), {
            id: manager.id,
          }),
        ),
      );
    const before = await snapshot();
    for (const fields of <Record<string, string>[]>[
      { intent: "update", name: "Renamed", email: "taken-over@example.test" },
      { intent: "revoke-session", session: "all" },
      { intent: "send-reset" },
    ]) {
      const out = await onOwnPage(fields);
      expect(out.status, fields.intent).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("an API caller gets 403 impersonating", async () => {
    const me = (await whoIs(admin.cookie))!;
    const out = await run(() => refuseWhileImpersonating({ request: request("/api/tokens") }, me));
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({ error: "impersonating" });
    // And nothing is refused for the real person.
    expect(() =>
      refuseWhileImpersonating({ request: request("/api/tokens") }, { ...me, impersonator: null }),
    ).not.toThrow();
  });

  it("every audit row written meanwhile names the account acted as and the real person", async () => {
    const out = await settings(admin.cookie, { intent: "profile", name: "Renamed While Viewed" });
    expect(out.status).toBe(200);
    const [row] = await auditOf("account.profile.update", target.id);
    expect(row).toMatchObject({
      actor_id: target.id,
      actor_email: target.email,
      impersonator_id: admin.id,
      impersonator_email: admin.email,
    });
    const [view] = await describeAuditRows([row!]);
    expect(view!.actor).toMatchObject({ id: target.id, name: "Renamed While Viewed" });
    expect(view!.impersonator).toMatchObject({ id: admin.id, email: admin.email });
    // The target's own requests write rows with no impersonator.
    await settings(target.cookie, { intent: "profile", name: "Back To Me" });
    const [own] = await auditOf("account.profile.update", target.id);
    expect(own).toMatchObject({ actor_id: target.id, impersonator_id: null, impersonator_email: null });
  });
});

/** GET /api/events as the cookie's session; `next()` reads the next frame, or null once the server ended it. */
async function eventsOf(cookie: string) {
  const out = await eventsLoader(args(request("/api/events", { cookie })));
  const reader = (out as Response).body!.getReader();
  const decoder = new TextDecoder();
  const next = async () => {
    const chunk = await reader.read();
    return chunk.done ? null : decoder.decode(chunk.value);
  };
  expect(await next()).toContain("event: ping");
  return { next, cancel: () => reader.cancel() };
}

function signOut(cookie: string) {
  return run(() => logoutAction(args(request("/logout", { method: "POST", cookie }))));
}

describe("View as: signing out", () => {
  it("ends the view (impersonation.end) and the viewer's session; the viewed person's sessions and streams stay", async () => {
    const admin = await person(["super_admin"]);
    const target = await person(["user"]);
    const ownStream = await eventsOf(target.cookie);
    await viewAs(admin, target.id);
    const viewerStream = await eventsOf(admin.cookie);
    const targetSessions = await db()
      .selectFrom("session")
      .selectAll()
      .where("user_id", "=", target.id)
      .execute();
    const open = openStreamCount();

    const out = await signOut(admin.cookie);
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/login");

    // The viewer's session is gone; the stream it opened (which carried the viewed account's events) ended.
    expect(await db().selectFrom("session").select("id").where("user_id", "=", admin.id).execute()).toEqual(
      [],
    );
    expect(await whoIs(admin.cookie)).toBeNull();
    expect(await viewerStream.next()).toBeNull();
    expect(openStreamCount()).toBe(open - 1);
    // The viewed person's own session and stream are untouched: the stream still delivers.
    expect(await db().selectFrom("session").selectAll().where("user_id", "=", target.id).execute()).toEqual(
      targetSessions,
    );
    expect((await whoIs(target.cookie))?.id).toBe(target.id);
    systemBus().publish(SYSTEM_EVENT_CHANNEL, {
      type: "task-completed",
      userId: target.id,
      taskId: "t-1",
      status: "completed",
    });
    expect(await ownStream.next()).toContain("event: task-completed");
    await ownStream.cancel();

    const [end] = await auditOf("impersonation.end", target.id);
    expect(end).toMatchObject({
      actor_id: target.id,
      impersonator_id: admin.id,
      impersonator_email: admin.email,
    });
    expect(JSON.parse(end!.details!)).toEqual({ reason: "signed out" });
    // The sign-out is the real person's.
    const [logout] = await auditOf("auth.logout", admin.id);
    expect(logout).toMatchObject({ actor_id: admin.id, actor_email: admin.email, impersonator_id: null });
    expect(await auditOf("auth.logout", target.id)).toEqual([]);
  });

  it("without a View as, signs out as before: one auth.logout row and no impersonation.end", async () => {
    const someone = await person(["user"]);
    const before = (
      await db().selectFrom("audit_log").select("id").where("action", "=", "impersonation.end").execute()
    ).length;
    const stream = await eventsOf(someone.cookie);
    expect((await signOut(someone.cookie)).status).toBe(302);
    expect(await stream.next()).toBeNull();
    expect(await auditOf("auth.logout", someone.id)).toMatchObject([
      { actor_id: someone.id, impersonator_id: null },
    ]);
    expect(
      (await db().selectFrom("audit_log").select("id").where("action", "=", "impersonation.end").execute())
        .length,
    ).toBe(before);
  });
});

describe("View as: ending", () => {
  it("Stop returns the same session to the super admin, audited with both names", async () => {
    const admin = await person(["super_admin"]);
    const target = await person(["user"]);
    await viewAs(admin, target.id);
    const out = await stop(admin.cookie);
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe(`/dashboard/users/${target.id}`);
    const me = await whoIs(admin.cookie);
    expect(me).toMatchObject({ id: admin.id, isSuperAdmin: true, impersonator: null });
    const [row] = await auditOf("impersonation.stop", target.id);
    expect(row).toMatchObject({
      actor_id: target.id,
      impersonator_id: admin.id,
      impersonator_email: admin.email,
    });
    const session = await db()
      .selectFrom("session")
      .select(["impersonated_user_id", "impersonation_expires_at"])
      .where("user_id", "=", admin.id)
      .executeTakeFirstOrThrow();
    expect(session).toEqual({ impersonated_user_id: null, impersonation_expires_at: null });
  });

  it("Stop when viewing as nobody changes nothing", async () => {
    const admin = await person(["super_admin"]);
    const before = await snapshot();
    const out = await stop(admin.cookie);
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard");
    expect(await snapshot()).toEqual(before);
  });

  it("ends by itself after 30 minutes, also for a session the cache already holds", async () => {
    const admin = await person(["super_admin"]);
    const target = await person(["user"]);
    await viewAs(admin, target.id);
    expect((await whoIs(admin.cookie))?.id).toBe(target.id); // now cached
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + (IMPERSONATION_MINUTES * 60 + 1) * 1000 });
    const me = await whoIs(admin.cookie);
    expect(me).toMatchObject({ id: admin.id, impersonator: null });
    const [row] = await auditOf("impersonation.end", target.id);
    expect(row).toMatchObject({ actor_id: target.id, impersonator_id: admin.id });
    expect(JSON.parse(row!.details!)).toEqual({ reason: "expired" });
    // Written once, however many requests see the end.
    await whoIs(admin.cookie);
    expect(await auditOf("impersonation.end", target.id)).toHaveLength(1);
  });

  it("ends when the super admin grant behind it ends, also for a session the cache already holds", async () => {
    const user = await createUser({ roles: ["user"] });
    const superRole = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "super_admin")
      .executeTakeFirstOrThrow();
    const ends = Date.now() + 60_000;
    await db()
      .insertInto("user_role")
      .values({ user_id: user.id, role_id: superRole.id, expires_at: new Date(ends).toISOString() })
      .execute();
    const admin = { id: user.id, email: user.email, cookie: await sessionCookieFor(user.id) };
    const target = await person(["user"]);
    await viewAs(admin, target.id);
    expect((await whoIs(admin.cookie))?.id).toBe(target.id); // now cached
    vi.useFakeTimers({ toFake: ["Date"], now: ends + 1000 });
    expect(await whoIs(admin.cookie)).toMatchObject({
      id: admin.id,
      impersonator: null,
      isSuperAdmin: false,
    });
    const [row] = await auditOf("impersonation.end", target.id);
    expect(JSON.parse(row!.details!)).toEqual({ reason: "no longer a super admin" });
  });

  it("ends when the expiry column is in the past", async () => {
    const admin = await person(["super_admin"]);
    const target = await person(["user"]);
    await viewAs(admin, target.id);
    await db()
      .updateTable("session")
      .set({ impersonation_expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("user_id", "=", admin.id)
      .execute();
    await invalidateSessions();
    expect(await whoIs(admin.cookie)).toMatchObject({ id: admin.id, impersonator: null });
  });

  it("ends when the target is disabled or made a super admin meanwhile", async () => {
    const admin = await person(["super_admin"]);
    const target = await person(["user"]);
    await viewAs(admin, target.id);
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", target.id).execute();
    await invalidateSessions();
    expect(await whoIs(admin.cookie)).toMatchObject({ id: admin.id, impersonator: null });
    const [row] = await auditOf("impersonation.end", target.id);
    expect(JSON.parse(row!.details!)).toEqual({ reason: "account no longer viewable" });

    const other = await person(["user"]);
    await viewAs(admin, other.id);
    const superRole = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "super_admin")
      .executeTakeFirstOrThrow();
    await db().insertInto("user_role").values({ user_id: other.id, role_id: superRole.id }).execute();
    await invalidateSessions();
    const me = await whoIs(admin.cookie);
    expect(me).toMatchObject({ id: admin.id, impersonator: null });
  });
});

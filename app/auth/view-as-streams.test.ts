import { beforeAll, describe, expect, it } from "vitest";
import { args, context, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { createRole, updateRole } from "../access/roles-admin.server";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { clusterLink, setClusterLink } from "../events/cluster.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";
import { loader as eventsLoader } from "../routes/api.events";
import { action as userAction } from "../routes/dashboard.users.$id/route";
import { revokeSession, setUserStatus, updateUser } from "../users/users.server";
import { revokeMySessions } from "./account.server";
import { resetPassword } from "./password-reset.server";
import { getSessionUser, invalidateSessions, type SessionUser, sessionHandle } from "./session.server";
import { issueToken } from "./tokens.server";

// A super admin's "View as" stream is registered under the viewed person's id and carries their
// events. Whatever ends the super admin's session, or the view, must close it (on every instance:
// the handle travels on the bus), and the viewed person's own streams must stay.

beforeAll(setupDatabase);

type Person = { id: string; email: string; name: string; cookie: string };

async function person(roles: string[]): Promise<Person> {
  const user = await createUser({ roles });
  return { id: user.id, email: user.email, name: user.name, cookie: await sessionCookieFor(user.id) };
}

const origin = () => ({ request: request("/dashboard"), context: context() });

async function whoIs(cookie: string): Promise<SessionUser | null> {
  return getSessionUser({ request: request("/dashboard", { cookie }), context: context() });
}

async function actor(cookie: string): Promise<SessionUser> {
  const user = await whoIs(cookie);
  if (!user) throw new Error("not signed in");
  return user;
}

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

function publishTo(userId: string, taskId: string) {
  systemBus().publish(SYSTEM_EVENT_CHANNEL, { type: "task-completed", userId, taskId, status: "completed" });
}

/**
 * A super admin viewing as a user, with a stream open in that view, and the user's own stream.
 * `ended()` publishes one of the user's events and asserts the View-as stream did not get it
 * (it was closed) while the user's own stream did.
 */
async function viewingWithStreams(targetRoles = ["user"]) {
  const other = await person(["super_admin"]);
  const admin = await person(["super_admin"]);
  const target = await person(targetRoles);
  const own = await eventsOf(target.cookie);
  const req = formRequest(`/dashboard/users/${target.id}`, { intent: "view-as" }, { cookie: admin.cookie });
  expect((await run(() => userAction(args(req, { id: target.id })))).status).toBe(302);
  expect((await whoIs(admin.cookie))?.impersonator?.id).toBe(admin.id);
  const viewer = await eventsOf(admin.cookie);
  const [session] = await db().selectFrom("session").select("id").where("user_id", "=", admin.id).execute();
  let n = 0;
  const ended = async () => {
    const taskId = `t-${++n}`;
    publishTo(target.id, taskId);
    // An open View-as stream would deliver the viewed person's event here instead of ending.
    expect(await viewer.next()).toBeNull();
    expect(await own.next()).toContain(`"taskId":"${taskId}"`);
    expect((await whoIs(target.cookie))?.id).toBe(target.id);
    await own.cancel();
  };
  return { other, admin, target, sessionId: session!.id, viewer, own, ended };
}

describe("a super admin's View-as stream ends with their session", () => {
  it("when another super admin disables them", async () => {
    const s = await viewingWithStreams();
    await setUserStatus(await actor(s.other.cookie), { id: s.admin.id, status: "disabled" }, origin());
    expect(await db().selectFrom("session").select("id").where("user_id", "=", s.admin.id).execute()).toEqual(
      [],
    );
    await s.ended();
  });

  it("when an admin revokes that session", async () => {
    const s = await viewingWithStreams();
    await revokeSession(
      await actor(s.other.cookie),
      { userId: s.admin.id, handle: sessionHandle(s.sessionId) },
      origin(),
    );
    expect(await whoIs(s.admin.cookie)).toBeNull();
    await s.ended();
  });

  it("when they sign out their other sessions from another browser", async () => {
    const s = await viewingWithStreams();
    const elsewhere = await sessionCookieFor(s.admin.id);
    const ownElsewhere = await eventsOf(elsewhere);
    expect(await revokeMySessions(await actor(elsewhere), "others", origin())).toBe(1);
    await s.ended();
    // The session that revoked the others keeps its stream.
    publishTo(s.admin.id, "t-own");
    expect(await ownElsewhere.next()).toContain('"taskId":"t-own"');
    await ownElsewhere.cancel();
  });

  it("when their password is reset by email", async () => {
    const s = await viewingWithStreams();
    const token = await issueToken({ kind: "reset-password", userId: s.admin.id });
    expect(await resetPassword(origin(), token, "a brand new passphrase")).toMatchObject({ ok: true });
    expect(await whoIs(s.admin.cookie)).toBeNull();
    await s.ended();
  });
});

describe("a super admin's View-as stream ends with the view", () => {
  it("when they lose super admin (the view ends as 'no longer a super admin' on reconnecting)", async () => {
    const s = await viewingWithStreams();
    const manager = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "manager")
      .executeTakeFirstOrThrow();
    await updateUser(
      await actor(s.other.cookie),
      { id: s.admin.id, name: s.admin.name, email: s.admin.email, roles: [manager.id] },
      origin(),
    );
    await s.ended();
    // The browser reconnects: the session is the former super admin's own again, and the end is audited.
    const me = await whoIs(s.admin.cookie);
    expect(me).toMatchObject({ id: s.admin.id, impersonator: null });
    const ends = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "impersonation.end")
      .where("target_id", "=", s.target.id)
      .execute();
    expect(ends.map((r) => JSON.parse(r.details!))).toEqual([{ reason: "no longer a super admin" }]);
  });

  it("a change that leaves the view standing closes the stream, and the view resumes on reconnecting", async () => {
    const s = await viewingWithStreams();
    await updateUser(
      await actor(s.other.cookie),
      { id: s.admin.id, name: "Renamed Admin", email: s.admin.email, roles: await roleIds(["super_admin"]) },
      origin(),
    );
    await s.ended();
    expect((await whoIs(s.admin.cookie))?.impersonator?.id).toBe(s.admin.id);
  });
});

async function roleIds(names: string[]) {
  const rows = await db().selectFrom("role").select("id").where("name", "in", names).execute();
  return rows.map((r) => r.id);
}

describe("a View-as stream ends with the view, whatever ends it", () => {
  it("when a request of that session finds the view no longer holds (impersonation.end)", async () => {
    const s = await viewingWithStreams();
    // Demoted behind the domain's back: nothing but resolving the session notices.
    await db().deleteFrom("user_role").where("user_id", "=", s.admin.id).execute();
    await invalidateSessions();
    expect(await whoIs(s.admin.cookie)).toMatchObject({ id: s.admin.id, impersonator: null });
    await s.ended();
  });
  it("when the viewed person's role loses dashboard access", async () => {
    const root = await actor((await person(["super_admin"])).cookie);
    const roleId = await createRole(
      root,
      { name: "kiosk", label: "Kiosk", permissions: ["dashboard.access"] },
      origin(),
    );
    const s = await viewingWithStreams(["kiosk"]);
    await updateRole(root, { roleId, label: "Kiosk", permissions: [] }, origin());
    publishTo(s.target.id, "t-kiosk");
    expect(await s.viewer.next()).toBeNull();
    expect(await whoIs(s.admin.cookie)).toMatchObject({ id: s.admin.id, impersonator: null });
    const ends = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "impersonation.end")
      .where("target_id", "=", s.target.id)
      .execute();
    expect(ends.map((r) => JSON.parse(r.details!))).toEqual([{ reason: "account no longer viewable" }]);
    await s.own.cancel();
  });
});

describe("on every instance", () => {
  /** Runs `fn` with a cluster link that records which sessions' streams the others are asked to end. */
  async function announced(fn: () => Promise<unknown>): Promise<string[]> {
    const previous = clusterLink();
    const sessions: string[] = [];
    setClusterLink({
      announce: async () => {},
      endStreams: async () => {},
      endSessionStreams: async (session) => {
        sessions.push(session);
      },
    });
    try {
      await fn();
    } finally {
      setClusterLink(previous);
    }
    return sessions;
  }

  it("a disabled super admin's View-as session is announced to the other instances", async () => {
    const s = await viewingWithStreams();
    const actorUser = await actor(s.other.cookie);
    const sessions = await announced(() =>
      setUserStatus(actorUser, { id: s.admin.id, status: "disabled" }, origin()),
    );
    expect(sessions).toContain(sessionHandle(s.sessionId));
    await s.ended();
  });

  it("so is a View-as session whose viewer lost super admin", async () => {
    const s = await viewingWithStreams();
    const actorUser = await actor(s.other.cookie);
    const roles = await roleIds(["manager"]);
    const sessions = await announced(() =>
      updateUser(actorUser, { id: s.admin.id, name: s.admin.name, email: s.admin.email, roles }, origin()),
    );
    expect(sessions).toEqual([sessionHandle(s.sessionId)]);
    await s.ended();
  });
});

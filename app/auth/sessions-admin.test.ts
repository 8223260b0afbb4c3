import { randomUUID } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { args, context, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { roleGrants } from "../access/role-cache.server";
import { setRoleSessionLimits } from "../access/session-limits.server";
import { answerProblem } from "../api-docs/check-answer";
import { db, now } from "../db.server";
import { openUserStream } from "../events/stream.server";
import * as sessionsApi from "../routes/api.sessions";
import * as sessionApi from "../routes/api.sessions.$id";
import * as sessionsPage from "../routes/dashboard.sessions/route";
import { clearSystemConfigCache, setSystemConfig } from "../system-settings/system-config.server";
import { getSessionUser } from "./session.server";
import { invalidateSessions } from "./session-cache.server";
import { sessionHandle } from "./session-end.server";

// Session lifetimes (idle and absolute, global and per role) and the sessions page and API
// (docs/http-contract.md, "Session lifetimes" and "Sessions"; decision 051).

const postmark = withFakePostmark();

beforeAll(setupDatabase);
afterEach(async () => {
  vi.useRealTimers();
  await setSystemConfig("SESSION_IDLE_MINUTES", "", null);
  clearSystemConfigCache();
});

const idOf = async (cookie: string) =>
  (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))?.sessionId;

async function sessionOf(roles: string[]) {
  const user = await createUser({ roles });
  const cookie = await sessionCookieFor(user.id);
  const id = (
    await db().selectFrom("session").select("id").where("user_id", "=", user.id).executeTakeFirstOrThrow()
  ).id;
  return { userId: user.id, email: user.email, cookie, id };
}

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const setSeen = (id: string, at: string, created?: string) =>
  db()
    .updateTable("session")
    .set({ last_seen_at: at, ...(created ? { created_at: created } : {}) })
    .where("id", "=", id)
    .execute();
const exists = async (id: string) =>
  Boolean(await db().selectFrom("session").select("id").where("id", "=", id).executeTakeFirst());

describe("idle timeout and lifetime", () => {
  it("ends a session unused past SESSION_IDLE_MINUTES at its next request, audited; a used one stays", async () => {
    await setSystemConfig("SESSION_IDLE_MINUTES", "1", null);
    clearSystemConfigCache();
    const idle = await sessionOf(["user"]);
    const busy = await sessionOf(["user"]);
    await setSeen(idle.id, ago(61_000));
    await setSeen(busy.id, ago(30_000));
    await invalidateSessions();
    expect(await idOf(idle.cookie)).toBeUndefined();
    expect(await exists(idle.id)).toBe(false);
    const row = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "auth.session.expired")
      .where("actor_id", "=", idle.userId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.details!)).toEqual({ reason: "idle" });
    expect(await idOf(busy.cookie)).toBe(busy.id);
    // A request notes the use (at most every quarter of the limit), so the session stays alive.
    const seen = await db()
      .selectFrom("session")
      .select("last_seen_at")
      .where("id", "=", busy.id)
      .executeTakeFirstOrThrow();
    expect(Date.now() - Date.parse(seen.last_seen_at)).toBeLessThan(5_000);
  });

  it("without any limit a session unused for days stays", async () => {
    const old = await sessionOf(["user"]);
    await setSeen(old.id, ago(3 * 86_400_000));
    await invalidateSessions();
    expect(await idOf(old.cookie)).toBe(old.id);
  });

  it("asks the database before calling a cached session idle: another instance may have seen it", async () => {
    await setSystemConfig("SESSION_IDLE_MINUTES", "1", null);
    clearSystemConfigCache();
    const s = await sessionOf(["user"]);
    const start = Date.now();
    await setSeen(s.id, new Date(start).toISOString());
    await invalidateSessions();
    expect(await idOf(s.cookie)).toBe(s.id); // cached here with last seen = start
    // Another instance served it 50 s later; this one is asked 90 s after start.
    await setSeen(s.id, new Date(start + 50_000).toISOString());
    vi.useFakeTimers({ toFake: ["Date"], now: start + 90_000 });
    expect(await idOf(s.cookie)).toBe(s.id);
    vi.setSystemTime(start + 200_000);
    expect(await idOf(s.cookie)).toBeUndefined();
  });

  it("a role's own limits are stricter: idle minutes, and a longest session however busy", async () => {
    const root = await createUser({ roles: ["super_admin"] });
    const actor = { id: root.id, email: root.email, isSuperAdmin: true, permissions: new Set<string>() };
    const manager = [...(await roleGrants()).values()].find((r) => r.name === "manager")!;
    const origin = { request: request("/dashboard/access"), context: context() };
    await setRoleSessionLimits(actor, { roleId: manager.id, idleMinutes: 5, maxHours: 1 }, origin);
    const idle = await sessionOf(["manager"]);
    await setSeen(idle.id, ago(6 * 60_000));
    const long = await sessionOf(["manager"]);
    await setSeen(long.id, ago(1_000), ago(2 * 3_600_000));
    const other = await sessionOf(["user"]);
    await setSeen(other.id, ago(6 * 60_000), ago(2 * 3_600_000));
    await invalidateSessions();
    expect(await idOf(idle.cookie)).toBeUndefined();
    expect(await idOf(long.cookie)).toBeUndefined();
    expect(await idOf(other.cookie)).toBe(other.id);
    const reasons = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "auth.session.expired")
      .where("actor_id", "in", [idle.userId, long.userId])
      .execute();
    expect(reasons.map((r) => JSON.parse(r.details!).reason).sort()).toEqual(["idle", "lifetime"]);
    await setRoleSessionLimits(actor, { roleId: manager.id }, origin);
    expect((await roleGrants()).get(manager.id)).toMatchObject({
      sessionIdleMinutes: null,
      sessionMaxHours: null,
    });
  });
});

describe("GET /api/sessions and DELETE /api/sessions/:id", () => {
  const list = async (cookie: string, query = "") => {
    const res = await run(() => sessionsApi.loader(args(request(`/api/sessions${query}`, { cookie }))));
    expect(answerProblem("GET", "/api/sessions", res.status, res.body)).toBeNull();
    return res;
  };
  const end = async (cookie: string, id: string) => {
    const res = await run(() =>
      sessionApi.action(args(request(`/api/sessions/${id}`, { cookie, method: "DELETE" }), { id })),
    );
    expect(answerProblem("DELETE", `/api/sessions/${id}`, res.status, res.body)).toBeNull();
    return res;
  };

  it("lists a second person's two sessions, by handle, never the cookie's id; filters by person and address", async () => {
    const admin = await sessionOf(["admin"]);
    const person = await createUser({ roles: ["user"], name: "Second Person" });
    await sessionCookieFor(person.id);
    await sessionCookieFor(person.id);
    await db().updateTable("session").set({ ip: "10.9.8.7" }).where("user_id", "=", person.id).execute();
    const res = await list(admin.cookie, `?user=${person.id}`);
    expect(res.status).toBe(200);
    const sessions = (res.body as { sessions: { id: string; user: { id: string }; ip: string }[] }).sessions;
    expect(sessions).toHaveLength(2);
    const ids = (
      await db().selectFrom("session").select("id").where("user_id", "=", person.id).execute()
    ).map((r) => r.id);
    expect(sessions.map((s) => s.id).sort()).toEqual(ids.map(sessionHandle).sort());
    expect(JSON.stringify(res.body)).not.toContain(ids[0]!);
    expect(sessions[0]).toMatchObject({ user: { id: person.id, name: "Second Person" }, ip: "10.9.8.7" });
    expect(sessions[0]).toHaveProperty("device");
    const byIp = (await list(admin.cookie, "?ip=10.9.8.")).body as { sessions: unknown[] };
    expect(byIp.sessions).toHaveLength(2);
    const byName = (await list(admin.cookie, "?q=second%20person")).body as { sessions: unknown[] };
    expect(byName.sessions).toHaveLength(2);
    // A wildcard typed is a character looked for, not "anything".
    const under = await createUser({ roles: ["user"], name: "Under_Score Person" });
    await sessionCookieFor(under.id);
    const found = async (query: string) =>
      ((await list(admin.cookie, query)).body as { sessions: { user: { id: string } }[] }).sessions.map(
        (x) => x.user.id,
      );
    expect(await found("?q=under_score")).toEqual([under.id]);
    expect(await found("?q=under%25score")).toEqual([]);
    expect(await found("?ip=%25")).toEqual([]);
  });

  it("ending one signs that browser out, closes its event stream and tells the person by email", async () => {
    const admin = await sessionOf(["admin"]);
    const person = await sessionOf(["user"]);
    const keep = await sessionCookieFor(person.userId);
    let ended = false;
    openUserStream(
      person.userId,
      { write: () => true, end: () => (ended = true) },
      { session: sessionHandle(person.id) },
    );
    const res = await end(admin.cookie, sessionHandle(person.id));
    expect(res.status).toBe(204);
    expect(await exists(person.id)).toBe(false);
    expect(await idOf(person.cookie)).toBeUndefined();
    expect(ended).toBe(true);
    // The person's other session stays.
    expect(await idOf(keep)).toBeTruthy();
    const mail = postmark.fake.messages.filter((m) => m.To === person.email);
    expect(mail).toHaveLength(1);
    expect(mail[0]?.TextBody).toContain("1 session was ended");
    const row = await db()
      .selectFrom("audit_log")
      .select(["details", "target_id"])
      .where("action", "=", "session.end")
      .where("actor_id", "=", admin.userId)
      .executeTakeFirstOrThrow();
    expect(row.target_id).toBe(person.userId);
  });

  it("refuses: a person one cannot manage 403, unknown or out of reach 404, no user.update 403", async () => {
    const admin = await sessionOf(["admin"]);
    const root = await sessionOf(["super_admin"]);
    expect((await end(admin.cookie, sessionHandle(root.id))).status).toBe(403);
    expect(await exists(root.id)).toBe(true);
    expect((await end(admin.cookie, "AAAAAAAAAAAAAAAA")).status).toBe(404);
    expect((await end(admin.cookie, "not a handle")).status).toBe(404);
    const manager = await sessionOf(["manager"]);
    const victim = await sessionOf(["user"]);
    expect((await list(manager.cookie)).status).toBe(403);
    expect((await end(manager.cookie, sessionHandle(victim.id))).status).toBe(403);
    expect(await exists(victim.id)).toBe(true);
  });

  it("a grant within a team reaches that team's people only", async () => {
    const team = randomUUID();
    await db()
      .insertInto("team")
      .values({ id: team, name: "Ops", description: "", created_at: now(), updated_at: now() })
      .execute();
    const lead = await sessionOf(["user"]);
    const admin = [...(await roleGrants()).values()].find((r) => r.name === "admin")!;
    await db()
      .insertInto("user_role")
      .values({ user_id: lead.userId, role_id: admin.id, team_id: team } as never)
      .execute();
    const member = await sessionOf(["user"]);
    await db()
      .insertInto("team_member")
      .values({ team_id: team, user_id: member.userId, team_role: "member", created_at: now() })
      .execute();
    const outsider = await sessionOf(["user"]);
    await invalidateSessions();
    const seen = ((await list(lead.cookie)).body as { sessions: { user: { id: string } }[] }).sessions;
    expect(seen.map((s) => s.user.id)).toEqual([member.userId]);
    expect((await end(lead.cookie, sessionHandle(outsider.id))).status).toBe(404);
    expect(await exists(outsider.id)).toBe(true);
    expect((await end(lead.cookie, sessionHandle(member.id))).status).toBe(204);
  });
});

describe("the sessions page", () => {
  const post = (cookie: string, body: Record<string, string | string[]>) => {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) for (const one of [v].flat()) form.append(k, one);
    return run(() =>
      sessionsPage.action(
        args(
          request("/dashboard/sessions", {
            cookie,
            method: "POST",
            body: form,
            headers: { "Content-Type": "application/x-www-form-urlencoded" },
          }),
        ),
      ),
    );
  };

  it("ends the ticked ones; everyone's but mine is a super admin's", async () => {
    const admin = await sessionOf(["admin"]);
    const a = await sessionOf(["user"]);
    const b = await sessionOf(["user"]);
    const out = await post(admin.cookie, {
      intent: "end-selected",
      sessions: [sessionHandle(a.id), sessionHandle(b.id)],
    });
    expect(out.status).toBe(302);
    expect(await exists(a.id)).toBe(false);
    expect(await exists(b.id)).toBe(false);
    expect((await post(admin.cookie, { intent: "end-everyone" })).status).toBe(403);
    const root = await sessionOf(["super_admin"]);
    const c = await sessionOf(["user"]);
    expect((await post(root.cookie, { intent: "end-everyone" })).status).toBe(302);
    expect(await exists(c.id)).toBe(false);
    expect(await exists(admin.id)).toBe(false);
    expect(await exists(root.id)).toBe(true);
  });
});

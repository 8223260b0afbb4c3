import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../db/connection";
import {
  args,
  context,
  createUser,
  ORIGIN,
  PASSWORD,
  request,
  run,
  setupDatabase,
  signedIn,
} from "../../test/helpers";
import { keptCounts, oldCounts } from "../../test/support/old-counts";
import { audit } from "../audit/audit.server";
import { purgeExpiredAudit } from "../audit/retention.server";
import { attemptLogin } from "../auth/login.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { recordMail } from "../mail/mail-log.server";
import { broadcastHistory, sendBroadcast } from "../notifications/broadcast.server";
import { markAllRead, markRead } from "../notifications/inbox.server";
import { loader } from "../routes/dashboard-home/route";
import { completeTask } from "../tasks/completion.server";
import { claimTask, insertTask } from "../tasks/repository.server";
import { createTeam, deleteTeam, getTeam, listTeams, removeMember, setMember } from "../teams/teams.server";
import { deleteUser, setUserStatus } from "../users/users.server";

beforeAll(setupDatabase);

const DAY = 86_400_000;
const ago = (days: number, minutes = 0) => new Date(Date.now() - days * DAY - minutes * 60_000).toISOString();
const origin = { request: new Request(`${ORIGIN}/test`), context: context() };
const STATUSES = ["pending", "processing", "completed", "failed"] as const;
const MAIL = ["sent", "failed", "outbox"] as const;

/**
 * Everything the triggers keep equals a full COUNT(*), and no deleted user's, role's, team's or
 * broadcast's counters are left.
 */
async function expectCountersMatch(step: unknown) {
  const kept = await keptCounts(db());
  expect(kept, JSON.stringify(step)).toEqual(await oldCounts(db()));
  for (const key of Object.keys(kept)) {
    const name = key.split("|")[2]!;
    if (name === "team.members" || name === "broadcast.reads") seen.add(name);
  }
  const orphans = await db()
    .selectFrom("stat_count")
    .select(["scope", "name"])
    .where("scope", "!=", "")
    .where("scope", "not in", db().selectFrom("user").select("id"))
    // A role's member count is scoped by the role (018_list_paths).
    .where("scope", "not in", db().selectFrom("role").select("id"))
    .where("scope", "not in", db().selectFrom("team").select("id"))
    .where("scope", "not in", db().selectFrom("broadcast").select("id"))
    .execute();
  expect(orphans, JSON.stringify(step)).toEqual([]);
  // A member's copied name (team_member_team_name_idx) is their name.
  const stale = await db()
    .selectFrom("team_member")
    .innerJoin("user", "user.id", "team_member.user_id")
    .select("user.id")
    .whereRef("team_member.member_name", "!=", "user.name")
    .execute();
  expect(stale, JSON.stringify(step)).toEqual([]);
}

type Overview = {
  users: { total: number; verified: number; disabled: number; newThisWeek: number } | null;
  teams: { total: number } | null;
  tasks: Record<string, number>;
  mail: Record<string, number> | null;
  chart: { days: string[]; signIns: number[] | null; tasks: number[] };
};

/** What the dashboard shows a super admin and a plain user, against the same full counts. */
async function expectDashboardMatches(superAdmin: string, plain: { id: string; cookie: string }) {
  const old = await oldCounts(db());
  const get = (key: string) => old[key] ?? 0;
  const group = (prefix: string) =>
    Object.fromEntries(
      Object.entries(old)
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, n]) => [k.slice(prefix.length), n]),
    );
  const show = async (cookie: string) =>
    (await run(() => loader(args(request("/dashboard", { cookie }))))).body as Overview;

  const all = await show(superAdmin);
  const { days } = all.chart;
  expect(all.users).toEqual({
    total: get("||users.total"),
    verified: get("||users.verified"),
    disabled: get("||users.disabled"),
    newThisWeek: days.slice(-7).reduce((sum, d) => sum + get(`|${d}|users.created`), 0),
  });
  expect(all.teams).toEqual({ total: get("||teams.total") });
  expect(all.tasks).toEqual(group("||tasks.status."));
  expect(all.mail).toEqual(group("||mail.status."));
  expect(all.chart.signIns).toEqual(days.map((d) => get(`|${d}|signins.day`)));
  expect(all.chart.tasks).toEqual(days.map((d) => get(`|${d}|tasks.created`)));

  const mine = await show(plain.cookie);
  expect(mine.tasks).toEqual(group(`${plain.id}||tasks.status.`));
  expect(mine.chart.tasks).toEqual(days.map((d) => get(`${plain.id}|${d}|tasks.created`)));

  // The teams list, a team's page and the broadcast history read the same counts (migration 012).
  const { teams, total } = await listTeams();
  expect(total).toBe(get("||teams.total"));
  expect(teams.map((t) => t.members)).toEqual(teams.map((t) => get(`${t.id}||team.members`)));
  for (const t of teams.slice(0, 3)) expect((await getTeam(t.id))?.memberCount).toBe(t.members);
  const history = await broadcastHistory();
  expect(history.map((b) => b.reads)).toEqual(history.map((b) => get(`${b.id}||broadcast.reads`)));
}

const idx = fc.nat({ max: 1000 });
const days = fc.integer({ min: 0, max: 20 });
const minutes = fc.integer({ min: 0, max: 1439 });
const op = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant("user"),
      verified: fc.boolean(),
      disabled: fc.boolean(),
      days,
      minutes,
    }),
  },
  fc.record({ k: fc.constant("status"), u: idx, disabled: fc.boolean() }),
  fc.record({ k: fc.constant("verify"), u: idx, verified: fc.boolean() }),
  fc.record({ k: fc.constant("deleteUser"), u: idx }),
  fc.record({ k: fc.constant("rename"), u: idx, name: fc.constantFrom("Zoe", "Adam", "Mia") }),
  fc.record({ k: fc.constant("team") }),
  fc.record({ k: fc.constant("deleteTeam"), t: idx }),
  { weight: 4, arbitrary: fc.record({ k: fc.constant("task"), u: idx, days, minutes }) },
  fc.record({ k: fc.constant("bulkTasks"), u: idx, n: fc.integer({ min: 1, max: 6 }), days }),
  fc.record({ k: fc.constant("claim"), t: idx }),
  fc.record({ k: fc.constant("complete"), t: idx, failed: fc.boolean() }),
  fc.record({ k: fc.constant("failRunning") }),
  fc.record({ k: fc.constant("deleteTasks"), status: fc.constantFrom(...STATUSES) }),
  fc.record({ k: fc.constant("moveTask"), t: idx, days, u: idx }),
  fc.record({ k: fc.constant("signIn"), u: idx }),
  fc.record({ k: fc.constant("audit"), login: fc.boolean(), days, minutes }),
  fc.record({ k: fc.constant("retention"), days: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ k: fc.constant("renameAudit"), login: fc.boolean() }),
  fc.record({ k: fc.constant("mail"), status: fc.constantFrom(...MAIL) }),
  fc.record({ k: fc.constant("mailStatus"), status: fc.constantFrom(...MAIL) }),
  fc.record({ k: fc.constant("mailDelete") }),
  // Migration 012's counters: members per team, reads per broadcast.
  { weight: 3, arbitrary: fc.record({ k: fc.constant("addMember"), t: idx, u: idx, lead: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("removeMember"), t: idx, u: idx }) },
  fc.record({ k: fc.constant("bulkMembers"), t: idx, u: idx, n: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ k: fc.constant("moveMembers"), t: idx, to: idx }),
  fc.record({ k: fc.constant("broadcast"), t: idx, toTeam: fc.boolean() }),
  { weight: 3, arbitrary: fc.record({ k: fc.constant("read"), n: idx }) },
  fc.record({ k: fc.constant("readAll"), u: idx }),
  fc.record({ k: fc.constant("unread"), n: idx }),
  fc.record({ k: fc.constant("moveNotification"), n: idx, b: idx }),
  fc.record({ k: fc.constant("deleteNotification"), n: idx }),
  fc.record({ k: fc.constant("deleteBroadcast"), b: idx }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

const READ_A_BROADCAST = [
  { k: "broadcast", t: 0, toTeam: false },
  { k: "read", n: 0 },
  { k: "read", n: 1 },
  { k: "readAll", u: 1 },
  { k: "readAll", u: 2 },
  { k: "readAll", u: 0 },
  { k: "team" },
  { k: "addMember", t: 0, u: 1, lead: false },
  { k: "addMember", t: 0, u: 2, lead: true },
] as Op[];

let actor: SessionUser;
/** Migration 012's counter names the steps made non-zero at least once. */
const seen = new Set<string>();
/** Users the steps may own tasks for but never disable, unverify or delete (the dashboard's viewers). */
const keep = new Set<string>();
let ip = 0;

async function ids(table: "user" | "team" | "task" | "broadcast" | "notification") {
  let q = db().selectFrom(table).select("id").orderBy("id");
  if (table === "user") q = q.where("id", "!=", actor.id).where("email", "like", "%@example.test");
  return (await q.execute()).map((r) => r.id);
}
const nth = (list: string[], i: number) => (list.length ? list[i % list.length] : undefined);

/** One step through the domain functions where they exist, raw SQL for what no product code does. */
async function apply(o: Op) {
  const users = await ids("user");
  const changeable = users.filter((id) => !keep.has(id));
  switch (o.k) {
    case "user": {
      const u = await createUser({ verified: o.verified, status: o.disabled ? "disabled" : "active" });
      return db()
        .updateTable("user")
        .set({ created_at: ago(o.days, o.minutes) })
        .where("id", "=", u.id)
        .execute();
    }
    case "status": {
      const id = nth(changeable, o.u);
      return id && setUserStatus(actor, { id, status: o.disabled ? "disabled" : "active" }, origin);
    }
    case "verify": {
      const id = nth(changeable, o.u);
      return (
        id &&
        db()
          .updateTable("user")
          .set({ email_verified: o.verified ? 1 : 0 })
          .where("id", "=", id)
          .execute()
      );
    }
    case "rename": {
      const id = nth(users, o.u);
      return id && db().updateTable("user").set({ name: o.name }).where("id", "=", id).execute();
    }
    case "deleteUser": {
      const id = nth(changeable, o.u);
      return id && deleteUser(actor, { id }, origin);
    }
    case "team":
      return createTeam(actor, { name: `Team ${randomUUID()}`, description: "" }, origin);
    case "deleteTeam": {
      const id = nth(await ids("team"), o.t);
      return id && deleteTeam(actor, { id }, origin);
    }
    case "task": {
      const userId = nth(users, o.u) ?? actor.id;
      const id = await insertTask({ type: "report.generate", userId, payload: null });
      return db()
        .updateTable("task")
        .set({ created_at: ago(o.days, o.minutes) })
        .where("id", "=", id)
        .execute();
    }
    case "bulkTasks": {
      const userId = nth(users, o.u) ?? actor.id;
      const rows = Array.from({ length: o.n }, (_, i) => ({
        id: randomUUID(),
        type: "report.generate",
        status: STATUSES[i % 4]!,
        user_id: i % 2 ? userId : actor.id,
        payload: null,
        result: null,
        created_at: ago(o.days, i * 300),
        updated_at: ago(0),
        completed_at: null,
      }));
      return db().insertInto("task").values(rows).execute();
    }
    case "claim": {
      const id = nth(await ids("task"), o.t);
      return id && claimTask(id);
    }
    case "complete": {
      const id = nth(await ids("task"), o.t);
      return (
        id &&
        completeTask(randomUUID(), { taskId: id, status: o.failed ? "failed" : "completed", result: {} })
      );
    }
    case "failRunning":
      return db().updateTable("task").set({ status: "failed" }).where("status", "=", "processing").execute();
    case "deleteTasks":
      return db().deleteFrom("task").where("status", "=", o.status).execute();
    case "moveTask": {
      const id = nth(await ids("task"), o.t);
      const userId = nth(users, o.u) ?? actor.id;
      return (
        id &&
        db()
          .updateTable("task")
          .set({ created_at: ago(o.days), user_id: userId })
          .where("id", "=", id)
          .execute()
      );
    }
    case "signIn": {
      const email = (
        await db()
          .selectFrom("user")
          .select("email")
          .where("id", "=", nth(users, o.u) ?? "")
          .executeTakeFirst()
      )?.email;
      if (!email) return;
      const body = new URLSearchParams({ email, password: PASSWORD });
      const req = new Request(`${ORIGIN}/login`, { method: "POST", body });
      // Unverified or disabled accounts are refused: a failed sign-in, which counts nowhere.
      return attemptLogin({ request: req, context: context(`198.51.100.${(ip++ % 250) + 1}`) }, email);
    }
    case "audit":
      await audit(origin, { action: o.login ? "auth.login.succeeded" : "user.update", actor });
      return db()
        .updateTable("audit_log")
        .set({ created_at: ago(o.days, o.minutes) })
        .where("created_at", ">", ago(0, 1))
        .execute();
    case "retention":
      return purgeExpiredAudit(o.days);
    case "renameAudit": {
      const [from, to] = o.login
        ? ["user.update", "auth.login.succeeded"]
        : ["auth.login.succeeded", "user.update"];
      const row = await db()
        .selectFrom("audit_log")
        .select("id")
        .where("action", "=", from)
        .executeTakeFirst();
      return row && db().updateTable("audit_log").set({ action: to }).where("id", "=", row.id).execute();
    }
    case "mail":
      return recordMail({ to: "someone@example.test", type: "test", subject: "Hello", status: o.status });
    case "mailStatus":
      return db()
        .updateTable("mail_log")
        .set({ status: o.status })
        .where("id", "=", db().selectFrom("mail_log").select("id").orderBy("id").limit(1))
        .execute();
    case "mailDelete":
      return db()
        .deleteFrom("mail_log")
        .where("id", "=", db().selectFrom("mail_log").select("id").orderBy("id").limit(1))
        .execute();
    case "addMember": {
      const teamId = nth(await ids("team"), o.t);
      const userId = nth(users, o.u);
      // A member already in the team changes role: counted once either way.
      return (
        teamId && userId && setMember(actor, { teamId, userId, teamRole: o.lead ? "lead" : "member" }, origin)
      );
    }
    case "removeMember": {
      const row = await db()
        .selectFrom("team_member")
        .select(["team_id", "user_id"])
        .orderBy("team_id")
        .orderBy("user_id")
        .offset(o.t % 50)
        .limit(1)
        .executeTakeFirst();
      return row && removeMember(actor, { teamId: row.team_id, userId: row.user_id }, origin);
    }
    case "bulkMembers": {
      const teamId = nth(await ids("team"), o.t);
      if (!teamId) return;
      const taken = new Set(
        (await db().selectFrom("team_member").select("user_id").where("team_id", "=", teamId).execute()).map(
          (r) => r.user_id,
        ),
      );
      const rows = [...users.slice(o.u % Math.max(1, users.length)), ...users]
        .filter((id, i, all) => !taken.has(id) && all.indexOf(id) === i)
        .slice(0, o.n)
        .map((userId) => ({
          team_id: teamId,
          user_id: userId,
          team_role: "member" as const,
          created_at: ago(0),
        }));
      return rows.length && db().insertInto("team_member").values(rows).execute();
    }
    case "moveMembers": {
      // Raw SQL moving memberships between teams: the update trigger on team_id.
      const teams = await ids("team");
      const [from, to] = [nth(teams, o.t), nth(teams, o.to)];
      if (!from || !to || from === to) return;
      return db()
        .updateTable("team_member")
        .set({ team_id: to })
        .where("team_id", "=", from)
        .where(
          "user_id",
          "not in",
          db().selectFrom("team_member").select("user_id").where("team_id", "=", to),
        )
        .execute();
    }
    case "broadcast": {
      const teamId = nth(await ids("team"), o.t);
      const audience =
        o.toTeam && teamId ? { kind: "teams" as const, ids: [teamId] } : { kind: "all" as const };
      const input = { title: "T", message: "M", level: "info" as const, link: null, audience, email: false };
      return sendBroadcast(actor, input, origin);
    }
    case "read": {
      const row = await db()
        .selectFrom("notification")
        .select(["id", "user_id"])
        .where("read_at", "is", null)
        .orderBy("id")
        .offset(o.n % 20)
        .limit(1)
        .executeTakeFirst();
      return row && markRead(row.user_id, row.id);
    }
    case "readAll": {
      const userId = nth([actor.id, ...users], o.u);
      return userId && markAllRead(userId);
    }
    case "unread": {
      const id = nth(await ids("notification"), o.n);
      return id && db().updateTable("notification").set({ read_at: null }).where("id", "=", id).execute();
    }
    case "moveNotification": {
      // Raw SQL: a notification changes broadcast (or loses it), read or not.
      const id = nth(await ids("notification"), o.n);
      const to = o.b % 5 === 0 ? null : (nth(await ids("broadcast"), o.b) ?? null);
      return id && db().updateTable("notification").set({ broadcast_id: to }).where("id", "=", id).execute();
    }
    case "deleteNotification": {
      const id = nth(await ids("notification"), o.n);
      return id && db().deleteFrom("notification").where("id", "=", id).execute();
    }
    case "deleteBroadcast": {
      // No product code deletes a notice; its notifications cascade.
      const id = nth(await ids("broadcast"), o.b);
      return id && db().deleteFrom("broadcast").where("id", "=", id).execute();
    }
  }
}

describe("maintained counters", () => {
  beforeAll(async () => {
    const u = await createUser({ roles: ["super_admin"] });
    actor = {
      ...u,
      roles: ["super_admin"],
      permissions: new Set(),
      isSuperAdmin: true,
      grants: [],
      mustChangePassword: false,
      sessionId: "test",
      sessionExpiresAt: ago(-1),
    };
  });

  it("equal a full COUNT(*) after every step of random creates, changes, sign-ins and deletes", async () => {
    await expectCountersMatch("start");
    // Their tasks come from the random steps (a plain user's own card and chart).
    const viewer = await signedIn(["super_admin"]);
    const plain = await signedIn(["user"]);
    keep.add(viewer.id).add(plain.id);
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 40, size: "max" }), async (ops) => {
        for (const o of ops) {
          await apply(o);
          steps++;
          await expectCountersMatch(o);
        }
        await expectDashboardMatches(viewer.cookie, plain);
      }),
      // One fixed sequence first, so a broadcast is read whatever the random runs do (the last line
      // asserts the counters were exercised; random runs alone missed reads about once in a few runs).
      { numRuns: 12, examples: [[READ_A_BROADCAST]] },
    );
    expect(steps).toBeGreaterThan(100);
    expect([...seen].sort()).toEqual(["broadcast.reads", "team.members"]);
  }, 180_000);

  it("stay exact with concurrent writers on two instances (each its own connection pool)", async () => {
    const url = process.env.DATABASE_URL!;
    const instances = [createDb(url, { poolSize: 4 }), createDb(url, { poolSize: 4 })];
    try {
      const owners = [actor.id, (await createUser()).id, (await createUser()).id];
      const writes = Array.from({ length: 120 }, (_, i) => async () => {
        const on = instances[i % 2]!;
        if (i % 3 === 0 || i < 20) {
          const ts = ago(i % 3);
          await on
            .insertInto("task")
            .values({
              id: randomUUID(),
              type: "report.generate",
              status: "pending",
              user_id: owners[i % 3]!,
              payload: null,
              result: null,
              created_at: ts,
              updated_at: ts,
              completed_at: null,
            })
            .execute();
        } else if (i % 3 === 1) {
          // The runner's claim and the webhook's completion, racing on the same rows.
          const next = i % 2 ? "processing" : "completed";
          await on
            .updateTable("task")
            .set({ status: next })
            .where(
              "id",
              "=",
              on.selectFrom("task").select("id").where("status", "!=", next).orderBy("id").limit(1),
            )
            .execute();
        } else {
          await sql`insert into audit_log (id, action, created_at) values (${randomUUID()}, 'auth.login.succeeded', ${ago(0)})`.execute(
            on,
          );
        }
      });
      await Promise.all(writes.map((w) => w()));
      await expectCountersMatch("concurrent");
    } finally {
      await Promise.all(instances.map((i) => i.destroy()));
    }
  });
});

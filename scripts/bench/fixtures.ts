import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { createCookie } from "react-router";
import type { Database } from "../../db/schema";
import { insertRows } from "../bulk/insert-rows";

export const BENCH_ADMIN = { email: "bench@bench.test", password: "bench-password-123" };

export type Fixtures = {
  owner: { id: string; cookie: string };
  /** the largest team */
  userId: string;
  teamId: string;
  taskId: string;
  /** Holds `admin` within one team only (decision 044), and someone in that team. */
  lead: { id: string; cookie: string; teamId: string; memberId: string };
};

const sessionCookie = (secret: string) => createCookie("__session", { secrets: [secret], path: "/" });

export async function benchFixtures(db: Kysely<Database>, secret: string): Promise<Fixtures> {
  const ts = new Date().toISOString();
  const admin = await db
    .selectFrom("user")
    .select("id")
    .where("email", "=", BENCH_ADMIN.email)
    .executeTakeFirstOrThrow();
  const owner = { id: admin.id, cookie: await sessionFor(db, admin.id, sessionCookie(secret)) };

  const users = await db
    .selectFrom("user")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const bulkUser = await db
    .selectFrom("user")
    .select("id")
    .where("email", "=", `person${Math.floor(Number(users.n) / 2)}@bulk.test`)
    .executeTakeFirst();
  const userId = bulkUser?.id ?? (await plainUser(db, "Bench Person", ts));

  const bigTeam = await db.selectFrom("team").select("id").where("name", "=", "All hands").executeTakeFirst();
  let teamId = bigTeam?.id;
  if (!teamId) {
    teamId = randomUUID();
    await db
      .insertInto("team")
      .values({ id: teamId, name: "Bench team", description: "", created_at: ts, updated_at: ts })
      .execute();
    await db
      .insertInto("team_member")
      .values({ team_id: teamId, user_id: admin.id, team_role: "lead", created_at: ts })
      .execute();
  }

  const task = await db
    .selectFrom("task")
    .select("id")
    .where("user_id", "=", admin.id)
    .orderBy("created_at", "desc")
    .executeTakeFirst();
  let taskId = task?.id;
  if (!taskId) {
    taskId = randomUUID();
    await db
      .insertInto("task")
      .values({
        id: taskId,
        type: "report.generate",
        status: "completed",
        user_id: admin.id,
        payload: JSON.stringify({ durationMs: 0 }),
        result: JSON.stringify({ title: "System report" }),
        created_at: ts,
        updated_at: ts,
        completed_at: ts,
      })
      .execute();
  }
  const lead = await scopedLead(db, secret, ts);
  return { owner, userId, teamId, taskId, lead };
}

/** The bulk data's person5 (admin within their team), or one made here on an empty database. */
async function scopedLead(db: Kysely<Database>, secret: string, ts: string): Promise<Fixtures["lead"]> {
  const found = await db
    .selectFrom("user")
    .innerJoin("user_role", "user_role.user_id", "user.id")
    .select(["user.id", "user_role.team_id"])
    .where("user.email", "=", "person5@bulk.test")
    .where("user_role.team_id", "is not", null)
    .executeTakeFirst();
  let id = found?.id;
  let teamId = found?.team_id ?? null;
  if (!id || !teamId) {
    id = await plainUser(db, "Bench Lead", ts);
    teamId = randomUUID();
    await db
      .insertInto("team")
      .values({ id: teamId, name: "Bench lead's team", description: "", created_at: ts, updated_at: ts })
      .execute();
    const member = await plainUser(db, "Bench Member", ts);
    await db
      .insertInto("team_member")
      .values(
        [id, member].map((user_id) => ({
          team_id: teamId!,
          user_id,
          team_role: "member" as const,
          created_at: ts,
        })),
      )
      .execute();
    const admin = await db
      .selectFrom("role")
      .select("id")
      .where("name", "=", "admin")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("user_role")
      .values({ user_id: id, role_id: admin.id, team_id: teamId, granted_at: ts })
      .execute();
  }
  const other = await db
    .selectFrom("team_member")
    .select("user_id")
    .where("team_id", "=", teamId)
    .where("user_id", "!=", id)
    .executeTakeFirstOrThrow();
  return { id, teamId, memberId: other.user_id, cookie: await sessionFor(db, id, sessionCookie(secret)) };
}

async function plainUser(db: Kysely<Database>, name: string, ts: string): Promise<string> {
  const id = randomUUID();
  const role = await db.selectFrom("role").select("id").where("name", "=", "user").executeTakeFirstOrThrow();
  await db
    .insertInto("user")
    .values({
      id,
      name,
      email: `${name.toLowerCase().replaceAll(" ", "-")}-${id.slice(0, 6)}@bench.test`,
      email_verified: 1,
      password_hash: null,
      created_at: ts,
      updated_at: ts,
    })
    .execute();
  await db.insertInto("user_role").values({ user_id: id, role_id: role.id }).execute();
  return id;
}

/**
 * Written once the server is idle: a second SQLite writer while it is busy fails with
 * SQLITE_BUSY_SNAPSHOT. Their heartbeat is dated an hour ahead, so the stalled-task sweep leaves them alone.
 */
export async function processingTasks(db: Kysely<Database>, count: number): Promise<string[]> {
  const ts = new Date().toISOString();
  const heartbeat = new Date(Date.now() + 3_600_000).toISOString();
  const userId = await plainUser(db, "Webhook Bench", ts);
  const ids = Array.from({ length: count }, () => randomUUID());
  await db.transaction().execute((trx) =>
    insertRows(
      trx,
      "task",
      [
        ["id"],
        ["type"],
        ["status"],
        ["user_id"],
        ["payload", "jsonb"],
        ["created_at", "timestamptz"],
        ["updated_at", "timestamptz"],
      ],
      ids.map((id) => [id, "report.generate", "processing", userId, "{}", ts, heartbeat]),
    ),
  );
  return ids;
}

/** Queued work (each task also calls the webhook back) must not slow the next figure. */
export async function tasksSettled(db: Kysely<Database>, userId: string, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const open = await db
      .selectFrom("task")
      .select("id")
      .where("user_id", "=", userId)
      .where("status", "in", ["pending", "processing"])
      .limit(1)
      .executeTakeFirst();
    if (!open) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  console.warn(`tasks still open after ${timeoutMs / 1000} s; measuring on`);
}

/** Written straight to the database; returns their Cookie headers. */
export async function usersWithSessions(db: Kysely<Database>, count: number, secret: string, prefix: string) {
  const cookie = sessionCookie(secret);
  const ts = new Date().toISOString();
  const out: { id: string; cookie: string }[] = [];
  for (let i = 0; i < count; i++) {
    const id = await plainUser(db, `${prefix} ${i}`, ts);
    out.push({ id, cookie: await sessionFor(db, id, cookie, ts) });
  }
  return out;
}

export async function sessionFor(
  db: Kysely<Database>,
  userId: string,
  cookie: ReturnType<typeof createCookie>,
  ts = new Date().toISOString(),
  expires = new Date(Date.now() + 86_400_000).toISOString(),
) {
  const sessionId = randomUUID();
  await db
    .insertInto("session")
    .values({
      id: sessionId,
      user_id: userId,
      data: "{}",
      ip: null,
      user_agent: "bench",
      created_at: ts,
      last_seen_at: ts,
      expires_at: expires,
    })
    .execute();
  return (await cookie.serialize(sessionId)).split(";")[0]!;
}

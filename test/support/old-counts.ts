import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema";

/**
 * Every counter of `stat_count`, computed the way the overview did before it had counters: full
 * `COUNT(*)`s over the tables, with the old day bucket. Keys are `scope|day|name`; zeros left out.
 * Independent of the trigger specs on purpose, so a wrong spec fails the comparison.
 */
export async function oldCounts(db: Kysely<Database>): Promise<Record<string, number>> {
  const day = sql<string>`substr(cast(created_at as text), 1, 10)`;
  const out: Record<string, number> = {};
  const put = (scope: string, d: string, name: string, n: unknown) => {
    if (Number(n)) out[`${scope}|${d}|${name}`] = Number(n);
  };
  const users = await db
    .selectFrom("user")
    .select((eb) => [
      eb.fn.countAll<number>().as("total"),
      eb.fn.sum<number>(eb.case().when("email_verified", "=", 1).then(1).else(0).end()).as("verified"),
      eb.fn.sum<number>(eb.case().when("status", "=", "disabled").then(1).else(0).end()).as("disabled"),
    ])
    .executeTakeFirstOrThrow();
  put("", "", "users.total", users.total);
  put("", "", "users.verified", users.verified);
  put("", "", "users.disabled", users.disabled);
  const usersPerDay = await db
    .selectFrom("user")
    .select([day.as("day"), (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy(day)
    .execute();
  for (const r of usersPerDay) put("", r.day, "users.created", r.n);

  const teams = await db
    .selectFrom("team")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  put("", "", "teams.total", teams.n);

  const tasks = await db
    .selectFrom("task")
    .select(["user_id", "status", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy(["user_id", "status"])
    .execute();
  const tasksPerDay = await db
    .selectFrom("task")
    .select(["user_id", day.as("day"), (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy(["user_id", day])
    .execute();
  const add = (key: string, n: unknown) => {
    out[key] = (out[key] ?? 0) + Number(n);
  };
  for (const r of tasks) {
    put(r.user_id, "", `tasks.status.${r.status}`, r.n);
    add(`||tasks.status.${r.status}`, r.n);
  }
  for (const r of tasksPerDay) {
    put(r.user_id, r.day, "tasks.created", r.n);
    add(`|${r.day}|tasks.created`, r.n);
  }

  const mail = await db
    .selectFrom("mail_log")
    .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("status")
    .execute();
  for (const r of mail) put("", "", `mail.status.${r.status}`, r.n);

  const signIns = await db
    .selectFrom("audit_log")
    .select([day.as("day"), (eb) => eb.fn.countAll<number>().as("n")])
    .where("action", "=", "auth.login.succeeded")
    .groupBy(day)
    .execute();
  for (const r of signIns) put("", r.day, "signins.day", r.n);

  // The access page's members per role (018_list_paths), scoped by the role's id: global grants (036).
  const roleMembers = await db
    .selectFrom("user_role")
    .select(["role_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("team_id", "is", null)
    .groupBy("role_id")
    .execute();
  for (const r of roleMembers) put(r.role_id, "", "roles.members", r.n);
  // Migration 012: members per team, read notifications per broadcast.
  const members = await db
    .selectFrom("team_member")
    .select(["team_id", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("team_id")
    .execute();
  for (const r of members) put(r.team_id, "", "team.members", r.n);
  const reads = await db
    .selectFrom("notification")
    .select(["broadcast_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("broadcast_id", "is not", null)
    .where("read_at", "is not", null)
    .groupBy("broadcast_id")
    .execute();
  for (const r of reads) put(r.broadcast_id!, "", "broadcast.reads", r.n);
  return out;
}

/** What the triggers keep in `stat_count`, in the same shape (zeros left out). */
export async function keptCounts(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db.selectFrom("stat_count").select(["scope", "day", "name", "n"]).execute();
  return Object.fromEntries(
    rows.filter((r) => Number(r.n) !== 0).map((r) => [`${r.scope}|${r.day}|${r.name}`, Number(r.n)]),
  );
}

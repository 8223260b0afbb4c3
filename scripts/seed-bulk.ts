// npm run db:seed:bulk [SIZE | USERS AUDITS TASKS]: realistic volume on top of the seed, through ordinary INSERTs.
import { type Kysely, sql } from "kysely";
import { seed } from "../app/server/seed.server";
import { createDb, dialectOf } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import type { Database } from "../db/schema";
import * as activity from "./bulk/activity";
import { type BulkContext, seededRandom } from "./bulk/context";
import { insertRows, withBulkLoadSettings } from "./bulk/insert-rows";
import * as people from "./bulk/people";
import { type BulkSpec, isSizeName, SIZES, specFor } from "./bulk/sizes";
import { loadDotEnv } from "./dotenv";

export { type BulkSpec, SIZES, specFor };

export type BulkReport = { rows: Record<string, number>; ms: number };

/** The seeded super admin owns a share of the tasks and receives every broadcast, as the bench signs in as them. */
export async function seedBulk(
  db: Kysely<Database>,
  spec: BulkSpec = SIZES["10k"],
  options: { randomSeed?: number; onTable?: (table: string, rows: number, ms: number) => void } = {},
): Promise<BulkReport> {
  const started = performance.now();
  const roles = await db.selectFrom("role").select(["id", "name"]).execute();
  const roleId = (name: string) => {
    const role = roles.find((r) => r.name === name);
    if (!role) throw new Error(`role ${name} is missing: seed the database first`);
    return role.id;
  };
  const owner = await db
    .selectFrom("user")
    .innerJoin("user_role", "user_role.user_id", "user.id")
    .where("user_role.role_id", "=", roleId("super_admin"))
    .select(["user.id", "user.email"])
    .orderBy("user.created_at")
    .executeTakeFirstOrThrow(() => new Error("no super admin: seed the database first"));
  const ctx: BulkContext = {
    spec,
    now: Date.now(),
    random: seededRandom(options.randomSeed ?? 1),
    owner,
    roles: { user: roleId("user"), manager: roleId("manager"), admin: roleId("admin") },
    userIds: [],
    teamIds: [],
    broadcastIds: [],
    auditHead: await db
      .selectFrom("audit_chain")
      .select(["seq", "hash"])
      .where("id", "=", 1)
      .executeTakeFirstOrThrow()
      .then((h) => ({ seq: Number(h.seq), hash: h.hash })),
  };
  const loads = [
    people.users,
    people.userRoles,
    people.teams,
    people.teamMembers,
    people.scopedGrants,
    people.sessions,
    activity.auditRows,
    activity.tasks,
    activity.mails,
    activity.broadcasts,
    activity.notifications,
  ];
  const rows: Record<string, number> = {};
  await withBulkLoadSettings(db, () =>
    db.transaction().execute(async (trx) => {
      for (const load of loads) {
        const { table, columns, rows: make } = load(ctx);
        const t = performance.now();
        rows[table] = (rows[table] ?? 0) + (await insertRows(trx, table, columns, make()));
        options.onTable?.(table, rows[table], performance.now() - t);
      }
      await trx.updateTable("audit_chain").set(ctx.auditHead).where("id", "=", 1).execute();
    }),
  );
  // Analysed now so the planner's choices do not depend on how soon a run follows the load.
  if (dialectOf(db as Kysely<unknown>) === "postgres") await sql`analyze`.execute(db);
  return { rows, ms: performance.now() - started };
}

export function parseSizeArgs(args: string[]): BulkSpec {
  const [first] = args;
  if (first && isSizeName(first)) {
    const spec = SIZES[first];
    if (!spec) throw new Error("`empty` is the seed alone: run npm run db:seed");
    return spec;
  }
  const [users = 10_000, audits = users * 10, tasks = audits] = args.map(Number);
  if (![users, audits, tasks].every((n) => Number.isInteger(n) && n >= 0))
    throw new Error("usage: npm run db:seed:bulk [10k | 100k | USERS AUDITS TASKS]");
  return specFor(users, audits, tasks);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  loadDotEnv();
  const spec = parseSizeArgs(process.argv.slice(2));
  const db = createDb(process.env.DATABASE_URL ?? "file:./data/app.db");
  await migrateToLatest(db);
  await seed(db, process.env);
  const report = await seedBulk(db, spec, {
    onTable: (table, n, ms) =>
      console.log(`${table.padEnd(14)} ${String(n).padStart(9)} rows  ${ms.toFixed(0)} ms`),
  });
  console.log(`bulk data written in ${(report.ms / 1000).toFixed(1)} s`);
  await db.destroy();
}

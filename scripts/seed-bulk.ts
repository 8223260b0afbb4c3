import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import type { Database } from "../db/schema";
import { loadDotEnv } from "./dotenv";

const ACTIONS = [
  "auth.login.succeeded",
  "auth.login.failed",
  "user.update",
  "settings.update",
  "team.member.add",
];

/** Adds `users` users (a third of them managers) and `audits` audit rows spread over 90 days. */
export async function seedBulk(db: Kysely<Database>, users = 10_000, audits = 100_000) {
  const roles = await db.selectFrom("role").select(["id", "name"]).execute();
  const managerId = roles.find((r) => r.name === "manager")!.id;
  const userId = roles.find((r) => r.name === "user")!.id;
  const now = Date.now();
  const ids: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < users; i += 500) {
      const batch = Array.from({ length: Math.min(500, users - i) }, (_, j) => {
        const n = i + j;
        const id = randomUUID();
        ids.push(id);
        const ts = new Date(now - n * 60_000).toISOString();
        return {
          id,
          name: `Person ${n}`,
          email: `person${n}@bulk.test`,
          email_verified: n % 4 ? 1 : 0,
          status: (n % 20 ? "active" : "disabled") as "active" | "disabled",
          created_at: ts,
          updated_at: ts,
        };
      });
      await trx.insertInto("user").values(batch).execute();
      await trx
        .insertInto("user_role")
        .values(batch.map((u, j) => ({ user_id: u.id, role_id: (i + j) % 3 ? userId : managerId })))
        .execute();
    }
    for (let i = 0; i < audits; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, audits - i) }, (_, j) => {
        const n = i + j;
        return {
          id: randomUUID(),
          actor_id: ids[n % ids.length] ?? null,
          actor_email: `person${n % users}@bulk.test`,
          action: ACTIONS[n % ACTIONS.length]!,
          target_type: "user",
          target_id: ids[(n * 7) % ids.length] ?? null,
          details: JSON.stringify({ before: { n }, after: { n: n + 1 } }),
          ip: "198.51.100.1",
          user_agent: "bulk",
          created_at: new Date(now - (n * 90 * 86_400_000) / audits).toISOString(),
        };
      });
      await trx.insertInto("audit_log").values(batch).execute();
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  loadDotEnv();
  const db = createDb(process.env.DATABASE_URL ?? "file:./data/app.db");
  await migrateToLatest(db);
  await seed(db, process.env);
  const t = Date.now();
  await seedBulk(db, Number(process.argv[2] ?? 10_000), Number(process.argv[3] ?? 100_000));
  console.log(`bulk data written in ${Date.now() - t} ms`);
  await db.destroy();
}

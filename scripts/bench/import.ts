// npm run bench:import: Users → Import's run on this machine (docs/decisions/034-user-import.md).
// A file of BENCH_IMPORT_ROWS (10,000) new people with a role and a team, parsed, previewed and
// imported as the task does (each row planned again and written in its own transaction, audited);
// prints the time of each step and the process's peak memory.
//   BENCH_DATABASE_URL=postgres://… (default: a fresh SQLite file)
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const count = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
process.env.DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? `file:${join(mkdtempSync(join(tmpdir(), "bench-import-")), "app.db")}`;

const { migrateToLatest } = await import("../../db/migrate");
const { db, closeDb } = await import("../../app/db.server");
const { seed } = await import("../../app/server/seed.server");
const { parseImportFile } = await import("../../app/users/import-csv");
const { planImport, runImport, summarise } = await import("../../app/users/import.server");

await migrateToLatest(db());
await seed(db(), { SUPER_ADMIN_EMAIL: "bench@example.test", SUPER_ADMIN_PASSWORD: "bench-password-123" });
const admin = await db()
  .selectFrom("user")
  .select(["id", "email", "name"])
  .where("email", "=", "bench@example.test")
  .executeTakeFirstOrThrow();
const actor = { ...admin, isSuperAdmin: true, permissions: new Set<string>() };
const ts = new Date().toISOString();
await db()
  .insertInto("team")
  .values({
    id: `bench-team-${Date.now()}`,
    name: `Bench ${Date.now()}`,
    description: "",
    created_at: ts,
    updated_at: ts,
  })
  .execute();
const team = (
  await db().selectFrom("team").select("name").orderBy("created_at", "desc").executeTakeFirstOrThrow()
).name;

const run = Date.now().toString(36);
const csv = `name,email,roles,teams\n${Array.from({ length: count }, (_, i) => `Person ${i},p${i}-${run}@bench.example,user,${team}`).join("\n")}\n`;
const origin = { request: new Request("http://internal/bench-import") };
const timed = async <T>(label: string, work: () => Promise<T> | T) => {
  const t = performance.now();
  const out = await work();
  console.log(`${label}: ${((performance.now() - t) / 1000).toFixed(2)} s`);
  return out;
};

const parsed = await timed(`parse ${count} rows (${(csv.length / 1024).toFixed(0)} KB)`, () =>
  parseImportFile(new TextEncoder().encode(csv)),
);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.problem));
const preview = await timed("preview (plan every row)", () => planImport(actor, parsed.rows));
console.log(`  ${JSON.stringify(summarise(preview))}`);
const results = await timed("import (plan again, write each row)", () =>
  runImport(actor, parsed.rows, { invite: false, origin }),
);
console.log(`  ${JSON.stringify(summarise(results.map((r) => ({ ...r, apply: undefined }))))}`);
console.log(`peak memory (max RSS): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
console.log(`database: ${process.env.DATABASE_URL?.startsWith("postgres") ? "PostgreSQL" : "SQLite"}`);
await closeDb();

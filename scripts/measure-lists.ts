import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Server time of the filtered users page and audit page queries on 10k users / 100k audit rows.
const file = join(tmpdir(), `measure-${randomUUID()}.db`);
process.env.DATABASE_URL = `file:${file}`;
process.env.SUPER_ADMIN_PASSWORD ??= "measure-password";
const { db, closeDb } = await import("../app/db.server");
const { migrateToLatest } = await import("../db/migrate");
const { seed } = await import("../app/server/seed.server");
const { seedBulk } = await import("./seed-bulk");
const { listUsers, userListQuery } = await import("../app/users/list.server");
const { listAudit, auditQuery } = await import("../app/audit/query.server");

await migrateToLatest(db());
await seed(db(), { NODE_ENV: "development", SUPER_ADMIN_PASSWORD: "measure-password" });
await seedBulk(db());

async function time(label: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await fn();
  const runs: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await fn();
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  console.log(`${label.padEnd(60)} p50 ${runs[10]!.toFixed(2)} ms  p95 ${runs[18]!.toFixed(2)} ms`);
}

await time("users: default page (newest 25)", () => listUsers(userListQuery.parse({})));
await time("users: search 'person12' sorted by name", () =>
  listUsers(userListQuery.parse({ q: "person12", sort: "name", dir: "asc" })),
);
await time("users: role=manager, status=active, page 40", () =>
  listUsers(userListQuery.parse({ role: "manager", status: "active", page: 40 })),
);
await time("users: verified=no sorted by last sign-in, 100/page", () =>
  listUsers(userListQuery.parse({ verified: "no", sort: "last_login_at", size: 100 })),
);
await time("audit: newest 50", () => listAudit(auditQuery.parse({})));
await time("audit: action=user.update, page 20", () =>
  listAudit(auditQuery.parse({ action: "user.update", page: 20 })),
);
await time("audit: actor filter", () => listAudit(auditQuery.parse({ actor: "person42@bulk.test" })));
const day = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
await time("audit: one day + action", () =>
  listAudit(auditQuery.parse({ from: day, to: day, action: "auth.login.failed" })),
);

await closeDb();
for (const s of ["", "-wal", "-shm"]) rmSync(file + s, { force: true });

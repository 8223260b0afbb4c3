import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// Every test file gets its own SQLite file; the app's db() opens it lazily from DATABASE_URL.
const file = join(tmpdir(), `dashboard-test-${randomUUID()}.db`);
process.env.DATABASE_URL = `file:${file}`;
process.env.NODE_ENV = "test";
process.env.SESSION_SECRET = "test-session-secret";
process.env.BASE_URL = "http://localhost:3000";
process.env.LOG_LEVEL = "silent";

afterAll(async () => {
  const { closeDb } = await import("../app/db.server");
  await closeDb();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
});

import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createTestSchema } from "./postgres-schema";

/** As the server's stop does: the file's last notes written, its minute timer gone before its database. */
async function stopPermissionUse() {
  const { stopPermissionUse: stop } = await import("../app/access/permission-use.server");
  await stop().catch(() => {});
}

// Every test file gets a database of its own, opened lazily by the app's db() from DATABASE_URL:
// a fresh SQLite file, or a fresh schema in the postgres project (TEST_DATABASE=postgres, see
// vitest.config.ts). setupDatabase() (test/helpers.ts) fills it from the run's template.
process.env.NODE_ENV = "test";
process.env.SESSION_SECRET = "test-session-secret";
process.env.BASE_URL = "http://localhost:3000";
process.env.LOG_LEVEL = "silent";
// Nothing in tests reaches the internet: the breached-password check is off unless a test turns it
// on against its own fake range service (app/auth/breached-passwords.test.ts).
process.env.PASSWORD_BREACH_CHECK = "off";

if (process.env.TEST_DATABASE === "postgres") {
  const schema = await createTestSchema();
  // The implementations a PostgreSQL deployment runs: the LISTEN/NOTIFY bus, the queue runner.
  const { composeServices } = await import("../app/server/composition.server");
  composeServices();
  afterAll(async () => {
    const { stopSystemBus } = await import("../app/events/bus.server");
    const { closeDb } = await import("../app/db.server");
    await stopPermissionUse();
    await stopSystemBus();
    await closeDb();
    await schema.drop();
  });
} else {
  const file = join(tmpdir(), `dashboard-test-${randomUUID()}.db`);
  process.env.DATABASE_URL = `file:${file}`;
  afterAll(async () => {
    const { closeDb } = await import("../app/db.server");
    await stopPermissionUse();
    await closeDb();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  });
}

import { join } from "node:path";

// Every Playwright worker runs its own production server on its own database, beside its own fake
// Postmark (e2e/server.ts, started by the worker fixture in e2e/fixtures.ts): tests in parallel never
// see each other's menu edits, settings, broadcasts or mail. E2E_PORT is the first port; the worker in
// slot n (TEST_PARALLEL_INDEX, set by Playwright in each worker) takes E2E_PORT + 2n for the app and
// the port after it for the mail. The runner process itself is slot 0.
export const E2E_BASE_PORT = Number(process.env.E2E_PORT ?? 3210);
export const E2E_MAX_WORKERS = 4;
const slot = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
if (slot >= E2E_MAX_WORKERS)
  throw new Error(`e2e: at most ${E2E_MAX_WORKERS} workers (ports ${E2E_BASE_PORT}–${E2E_BASE_PORT + 7})`);
export const E2E_PORT = String(E2E_BASE_PORT + 2 * slot);
export const E2E_BASE_URL = `http://localhost:${E2E_PORT}`;
// A database file that is never the dev one.
export const E2E_DB = join(process.cwd(), "data", `e2e-${E2E_PORT}.db`);
export const E2E_ADMIN = { email: "root@e2e.test", password: "e2e-super-secret-pw" };
export const E2E_PASSWORD = "e2e-user-password-1";
// Known to the specs too, so the login fixture can sign a session cookie the server accepts.
export const E2E_SESSION_SECRET = `e2e-session-secret-${E2E_PORT}`;

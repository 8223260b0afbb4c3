import { join } from "node:path";

// Shared by the global setup and the e2e server: a database file that is never the dev one.
export const E2E_PORT = process.env.E2E_PORT ?? "3210";
export const E2E_DB = join(process.cwd(), "data", `e2e-${E2E_PORT}.db`);
export const E2E_ADMIN = { email: "root@e2e.test", password: "e2e-super-secret-pw" };
export const E2E_PASSWORD = "e2e-user-password-1";
// Known to the specs too, so the login fixture can sign a session cookie the server accepts.
export const E2E_SESSION_SECRET = `e2e-session-secret-${E2E_PORT}`;

import { test as base, expect, type Page } from "@playwright/test";
import { RouterContextProvider } from "react-router";
import { createDb } from "../db/connection";
import { createUser as createUserIn } from "../test/support/users";
import { E2E_DB, E2E_PASSWORD, E2E_PORT, E2E_SESSION_SECRET } from "./env";

/** A verified user with the given roles, written straight into the e2e database (test/support/users.ts). */
export async function createUser(roles: string[], name = `E2E ${roles.join("+") || "nobody"}`) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await createUserIn(db, { roles, name, password: E2E_PASSWORD });
  } finally {
    await db.destroy();
  }
}

/** Signs in through the real form and waits for the dashboard (or the no-access page). */
export async function signIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard/);
}

/**
 * Collects every console error, uncaught exception and failed request (a network failure, or an
 * answer of 400 or more) so a test can assert there were none. `allowStatus` lists statuses the
 * test expects (e.g. the 403 of a page it may not open); the browser's console line for them is
 * allowed too. Requests the browser itself cancelled (navigation away, a closed event stream) are
 * not failures.
 */
export function watchConsole(page: Page, { allowStatus = [] as number[] } = {}): string[] {
  const problems: string[] = [];
  const expected = (text: string) => allowStatus.some((s) => text.includes(`status of ${s}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && !expected(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`exception: ${err.message}`));
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText ?? "";
    if (reason !== "net::ERR_ABORTED")
      problems.push(`failed: ${request.method()} ${request.url()} ${reason}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400 && !allowStatus.includes(response.status()))
      problems.push(`status ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return problems;
}

/**
 * A session for the user, made the way sign-in makes it (app/auth/session.server.ts startSession,
 * a row in the e2e database), as the cookie the server expects. Only the sign-in specs need the form.
 */
async function sessionCookieFor(email: string) {
  const baseURL = `http://localhost:${E2E_PORT}`;
  // This worker opens the e2e database and signs with the e2e server's secret (e2e/server.ts).
  process.env.DATABASE_URL = `file:${E2E_DB}`;
  process.env.SESSION_SECRET = E2E_SESSION_SECRET;
  process.env.BASE_URL = baseURL;
  const { db } = await import("../app/db.server");
  const { startSession } = await import("../app/auth/session.server");
  const { requestInfoContext } = await import("../app/http/request-info.server");
  const user = await db()
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirstOrThrow();
  const [setCookie] = await startSession(user.id, {
    request: new Request(baseURL, { headers: { "User-Agent": "Playwright login fixture" } }),
    context: new RouterContextProvider(new Map([[requestInfoContext, { ip: "127.0.0.1" }]])),
  });
  const pair = setCookie!.split(";")[0]!;
  const at = pair.indexOf("=");
  return { name: pair.slice(0, at), value: pair.slice(at + 1), url: baseURL };
}

export type Login = (user: { email: string }, page?: Page) => Promise<void>;

/**
 * `login(user)` signs `user` in on the test's page (or the page given, for a second browser
 * context) without the form, and opens the dashboard, where signIn() would have landed.
 */
export const test = base.extend<{ login: Login }>({
  login: async ({ page }, use) => {
    await use(async (user, target = page) => {
      await target.context().addCookies([await sessionCookieFor(user.email)]);
      await target.goto("/dashboard");
    });
  },
});
/**
 * The theme cookie as POST /theme sets it (react-router's createCookie: JSON, base64). Set directly
 * rather than posted, so an idle keep-alive socket the server just closed cannot reset the request;
 * /theme itself is tested in shell.spec.ts.
 */
export async function chooseTheme(page: Page, theme: "light" | "dark" | "system") {
  const value = Buffer.from(JSON.stringify(theme)).toString("base64");
  await page.context().addCookies([{ name: "theme", value, url: `http://localhost:${E2E_PORT}` }]);
}

export { expect };

import { randomUUID } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { hashPassword } from "../app/auth/password.server";
import { createDb } from "../db/connection";
import { E2E_DB, E2E_PASSWORD } from "./env";

/** Writes a verified user with the given roles straight into the e2e database. */
export async function createUser(roles: string[], name = `E2E ${roles.join("+") || "nobody"}`) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    const id = randomUUID();
    const email = `${roles.join("-") || "none"}-${id.slice(0, 8)}@e2e.test`;
    const ts = new Date().toISOString();
    await db
      .insertInto("user")
      .values({
        id,
        name,
        email,
        email_verified: 1,
        password_hash: await hashPassword(E2E_PASSWORD),
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    for (const role of roles) {
      const r = await db.selectFrom("role").select("id").where("name", "=", role).executeTakeFirstOrThrow();
      await db.insertInto("user_role").values({ user_id: id, role_id: r.id }).execute();
    }
    return { id, email, password: E2E_PASSWORD, name };
  } finally {
    await db.destroy();
  }
}

/** Signs in through the real form and waits for the dashboard (or the no-access page). */
export async function signIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
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

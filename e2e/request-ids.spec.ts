import { sql } from "kysely";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { expect, test } from "./fixtures";

// An error page shows "Reference: <id>", the X-Request-Id of the request that failed, so a user
// can quote it and it leads to the server's log lines and audit rows (decision 026).

/** Runs `fn` with `table` renamed away, so the pages reading it fail as with a broken database. */
async function without<T>(table: string, fn: () => Promise<T>): Promise<T> {
  const db = createDb(`file:${E2E_DB}`);
  const rename = async (from: string, to: string) => {
    // SQLite would otherwise re-check every trigger against the renamed table, and refuse.
    await sql`pragma legacy_alter_table = on`.execute(db);
    await sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(db);
  };
  await rename(table, `${table}_away`);
  try {
    return await fn();
  } finally {
    await rename(`${table}_away`, table);
    await db.destroy();
  }
}

test("a 404 page shows the reference its response names", async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  const id = response?.headers()["x-request-id"];
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await expect(page.getByText(`Reference: ${id}`)).toBeVisible();
});

test("a 500 shows the reference of the failed request, loaded or navigated to", async ({ login, page }) => {
  await login(E2E_ADMIN);
  await without("team", async () => {
    // A document request: the server renders the dashboard's error page with its id.
    const response = await page.goto("/dashboard/teams");
    expect(response?.status()).toBe(500);
    const id = response?.headers()["x-request-id"];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await expect(page.getByTestId("error")).toContainText(`Reference: ${id}`);
    await expect(page.locator('meta[name="request-id"]')).toHaveAttribute("content", id!);

    // A client navigation: the failed data request's id, not the document's.
    await page.goto("/dashboard");
    const failed = page.waitForResponse((r) => r.url().includes("/dashboard/teams.data"));
    // By its address: another spec renames the menu item.
    await page.locator('nav a[href="/dashboard/teams"]').first().click();
    const dataId = (await failed).headers()["x-request-id"];
    expect((await failed).status()).toBe(500);
    expect(dataId).not.toBe(id);
    await expect(page.getByTestId("error")).toContainText(`Reference: ${dataId}`);
  });
});

import { randomUUID } from "node:crypto";
import { createDb } from "../db/connection";
import { E2E_DB } from "./env";
import { axeBuilder, createUser, expect, test, watchConsole } from "./fixtures";

// The sessions page by keyboard: an admin finds a second person's two sessions and ends one; that
// browser's next page is the sign-in page, its other browser stays signed in. Then a role's
// sign-in policy: a rule that would lock out its author is refused, one that does not is checked
// against the last 30 days and saved.

test("ending one of a person's two sessions signs that browser out, the other stays", async ({
  login,
  page,
  browser,
}) => {
  const suffix = Math.random().toString(36).slice(2, 8);
  const admin = await createUser(["admin"], `Sam Sessions ${suffix}`);
  const person = await createUser(["user"], `Pat Two Browsers ${suffix}`);
  const laptop = await browser.newContext();
  const phone = await browser.newContext({
    userAgent:
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  });
  try {
    const laptopPage = await laptop.newPage();
    const phonePage = await phone.newPage();
    await login(person, laptopPage);
    await login(person, phonePage);
    const problems = watchConsole(page);
    await login(admin, page, "/dashboard/users");
    await page.getByRole("link", { name: "Sessions" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
    await page.getByLabel("Person").fill(`Pat Two Browsers ${suffix}`);
    await page.getByLabel("Person").press("Enter");
    const rows = page.getByTestId("session-row");
    await expect(rows).toHaveCount(2);
    expect((await axeBuilder(page).analyze()).violations).toEqual([]);
    const phoneRow = rows.filter({ hasText: "iOS" });
    await expect(phoneRow).toHaveCount(1);
    await phoneRow.getByRole("button", { name: /End/ }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByText("1 session ended.")).toBeVisible();
    await expect(rows).toHaveCount(1);

    await phonePage.goto("/dashboard/teams");
    await expect(phonePage).toHaveURL(/\/login/);
    await laptopPage.goto("/dashboard/teams");
    await expect(laptopPage).toHaveURL(/\/dashboard\/teams/);
    expect(problems).toEqual([]);
  } finally {
    await laptop.close();
    await phone.close();
  }
});

/** A role of the test's own, held by `userId`, granting what an admin holds. */
async function roleHeldBy(userId: string, name: string) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    const ts = new Date().toISOString();
    const id = randomUUID();
    await db.insertInto("role").values({ id, name, label: name, created_at: ts, updated_at: ts }).execute();
    const read = await db
      .selectFrom("permission")
      .select("id")
      .where("key", "=", "user.read")
      .executeTakeFirstOrThrow();
    await db.insertInto("role_permission").values({ role_id: id, permission_id: read.id }).execute();
    await db
      .insertInto("user_role")
      .values({ id: randomUUID(), user_id: userId, role_id: id, team_id: null, granted_at: ts })
      .execute();
  } finally {
    await db.destroy();
  }
}

test("a role's sign-in policy: a rule locking out its author is refused, another is checked and saved", async ({
  login,
  page,
}) => {
  const admin = await createUser(["admin"], "Nia Networks");
  const role = `vpn_${Math.random().toString(36).slice(2, 8)}`;
  await roleHeldBy(admin.id, role);
  await login(admin, page, "/dashboard/access?tab=roles");
  await page.getByRole("link", { name: `Sign-in policy of ${role}` }).click();
  await expect(page.getByRole("heading", { name: `Sign-in policy: ${role}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("current-networks")).toHaveText("Anywhere: no network rule.");
  const networks = page.getByLabel("Allowed networks");
  // The test's browser is on 127.0.0.1: a rule without it would shut this admin out.
  await networks.fill("10.0.0.0/8");
  await page.getByRole("button", { name: "Save rule" }).click();
  await expect(page.getByText(/would lock you out/)).toBeVisible();
  await networks.fill("10.0.0.0/8\nnope");
  await page.getByRole("button", { name: "Check who it would refuse" }).click();
  await expect(page.getByText("“nope” is not an address")).toBeVisible();
  await expect(networks).toHaveAttribute("aria-invalid", "true");
  await networks.fill("10.0.0.0/8\n127.0.0.0/8");
  await page.getByRole("button", { name: "Check who it would refuse" }).click();
  await expect(page.getByTestId("network-preview")).toContainText("in the last 30 days");
  await page.getByRole("button", { name: "Save rule" }).click();
  await expect(page.getByText(`${role} may now be used from 2 networks only.`)).toBeVisible();
  await expect(page.getByTestId("current-networks")).toContainText("127.0.0.0/8");
  expect((await axeBuilder(page).analyze()).violations).toEqual([]);
  await page.getByLabel("Idle timeout (minutes)").fill("30");
  await page.getByRole("button", { name: "Save session limits" }).click();
  await expect(page.getByText(`Session limits of ${role} saved.`)).toBeVisible();
});

import { randomUUID } from "node:crypto";
import { createDb } from "../db/connection";
import { E2E_DB } from "./env";
import { axeBuilder, createUser, expect, test, watchConsole } from "./fixtures";

// An access review in the browser, by keyboard: open a review of the manager role within a team,
// keep one grant, tick another and revoke it, close the review and watch it seal its evidence;
// then the list in German. axe on each state.

/** A team whose two people hold the manager role within it, and nothing else. */
async function teamWithManagers(team: string, names: [string, string]) {
  const people = [await createUser([], names[0]), await createUser([], names[1])];
  const db = createDb(`file:${E2E_DB}`);
  try {
    const ts = new Date().toISOString();
    const teamId = randomUUID();
    await db
      .insertInto("team")
      .values({ id: teamId, name: team, description: "", created_at: ts, updated_at: ts })
      .execute();
    const role = await db
      .selectFrom("role")
      .select("id")
      .where("name", "=", "manager")
      .executeTakeFirstOrThrow();
    for (const p of people) {
      await db
        .insertInto("team_member")
        .values({ team_id: teamId, user_id: p.id, team_role: "member", created_at: ts })
        .execute();
      await db
        .insertInto("user_role")
        .values({ id: randomUUID(), user_id: p.id, role_id: role.id, team_id: teamId, granted_at: ts })
        .execute();
    }
    return {
      people,
      grantsOf: (userId: string) =>
        db.selectFrom("user_role").select("id").where("user_id", "=", userId).execute(),
      close: () => db.destroy(),
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

test("a review by keyboard: keep one, revoke a ticked one, close it and see the evidence sealed", async ({
  login,
  page,
}) => {
  const suffix = randomUUID().slice(0, 6);
  const team = `Night shift ${suffix}`;
  const { people, grantsOf, close } = await teamWithManagers(team, [
    `Kim Keep ${suffix}`,
    `Rex Revoke ${suffix}`,
  ]);
  try {
    const admin = await createUser(["admin"], "Ava Auditor");
    const problems = watchConsole(page);
    await login(admin, page, "/dashboard/access/reviews");
    await expect(page.getByRole("heading", { name: "Access reviews", level: 1 })).toBeVisible();

    await page.getByLabel("Name").focus();
    await page.keyboard.type(`Night shift managers ${suffix}`);
    await page.getByLabel("Role").selectOption({ label: "Manager" });
    await page.getByLabel("Team").selectOption({ label: team });
    await page.getByRole("button", { name: "Open review" }).focus();
    await page.keyboard.press("Enter");
    await expect(
      page.getByRole("heading", { name: `Review: Night shift managers ${suffix}`, level: 1 }),
    ).toBeVisible();
    const rows = page.getByRole("region", { name: "The grants under review" }).getByRole("row");
    await expect(rows).toHaveCount(3);
    await expect(page.getByTestId("review-counts")).toHaveText("0 kept, 0 revoked, 2 undecided");
    expect((await axeBuilder(page).analyze()).violations).toEqual([]);
    // On a phone the grants scroll in their own frame; the page never scrolls sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 720 });

    // Keep the first by its own button; tick the second with Space and revoke the ticked.
    await page.getByRole("button", { name: `Keep Kim Keep ${suffix}` }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("decide-status")).toHaveText("1 grant kept.");
    await page.getByRole("checkbox", { name: `Tick Rex Revoke ${suffix}` }).focus();
    await page.keyboard.press("Space");
    await expect(page.getByText("1 ticked")).toBeVisible();
    await page.getByRole("button", { name: "Revoke ticked" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("decide-status")).toHaveText("1 grant marked for revocation.");
    await expect(page.getByTestId("review-counts")).toHaveText("1 kept, 1 revoked, 0 undecided");

    // Closing is a background task: its progress shows here, then the sealed evidence.
    await page.getByRole("button", { name: "Close review" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("review-status")).toContainText("Closed", { timeout: 30_000 });
    await expect(page.getByTestId("evidence-sha256")).toHaveText(/^SHA-256 [0-9a-f]{64}$/);
    await expect(page.getByRole("link", { name: "Download the evidence (CSV)" })).toBeVisible();
    await expect(rows.filter({ hasText: `Rex Revoke ${suffix}` })).toContainText("revoked");
    expect(await grantsOf(people[1]!.id)).toEqual([]);
    expect(await grantsOf(people[0]!.id)).toHaveLength(1);
    expect((await axeBuilder(page).analyze()).violations).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await close();
  }
});

test.describe("in German", () => {
  test.use({ locale: "de-DE" });

  test("the reviews page speaks German", async ({ login, page }) => {
    const admin = await createUser(["admin"], "Dora Prüferin");
    await login(admin, page, "/dashboard/access/reviews");
    await expect(page.getByRole("heading", { name: "Zugriffsprüfungen", level: 1 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Prüfung eröffnen" })).toBeVisible();
    await expect(page.getByLabel("Fällig")).toBeVisible();
    await expect(page.getByRole("button", { name: "Prüfung eröffnen" })).toBeVisible();
    expect((await axeBuilder(page).analyze()).violations).toEqual([]);
  });
});

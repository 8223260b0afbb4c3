import { randomUUID } from "node:crypto";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB, E2E_PASSWORD } from "./env";
import { axeBuilder, createUser, expect, signIn, tabTo, test, watchConsole } from "./fixtures";

// The overview's numbers lead to the lists they count, and its chart can be read by pointer and
// keyboard alike.

const DAY = 86_400_000;

async function inDb<T>(fn: (db: ReturnType<typeof createDb>) => Promise<T>): Promise<T> {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

test("the overview's counts open the users list filtered to them, by keyboard", async ({ login, page }) => {
  const problems = watchConsole(page);
  const tag = randomUUID().slice(0, 6);
  const fresh = await createUser(["user"], `Fresh Joiner ${tag}`);
  const old = await createUser(["user"], `Old Timer ${tag}`);
  const gone = await createUser(["user"], `Disabled Person ${tag}`);
  await inDb(async (db) => {
    const longAgo = new Date(Date.now() - 30 * DAY).toISOString();
    await db.updateTable("user").set({ created_at: longAgo }).where("id", "in", [old.id, gone.id]).execute();
    await db.updateTable("user").set({ status: "disabled" }).where("id", "=", gone.id).execute();
  });
  await login(E2E_ADMIN);
  const card = page.getByTestId("users-card");

  const newThisWeek = card.getByRole("link", { name: /new this week$/ });
  const count = Number((await newThisWeek.textContent())!.replace(/\D/g, ""));
  await tabTo(page, newThisWeek);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/users\?created=7d$/);
  await expect(page.getByTestId("page-range")).toContainText(`of ${count} user`);
  await page.goto(`/dashboard/users?created=7d&q=${tag}`);
  await expect(page.getByRole("link", { name: fresh.name }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: old.name })).toHaveCount(0);
  await expect(page.getByRole("link", { name: gone.name })).toHaveCount(0);

  await page.goto("/dashboard");
  const disabled = card.getByRole("link", { name: /disabled$/ });
  await tabTo(page, disabled);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/users\?status=disabled$/);
  await expect(page.getByRole("link", { name: gone.name }).first()).toBeVisible();

  await page.goto("/dashboard");
  await tabTo(page, card.getByRole("link", { name: /verified$/ }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/users\?verified=yes$/);

  // The mail counts open the mail log, on Settings' System page.
  await page.goto("/dashboard");
  await tabTo(page, page.getByRole("link", { name: /sent$/ }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/settings\/system$/);
  await expect(page.getByTestId("mail-log")).toBeVisible();
  expect(problems).toEqual([]);
});

test("a plain user's task counts open their task history filtered by status", async ({ login, page }) => {
  await login(await createUser(["user"], "Counted Tasks"));
  await tabTo(page, page.getByTestId("tasks-card").getByRole("link", { name: "0 failed" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/tasks\?status=failed$/);
  await expect(page.getByText("None of your tasks match these filters.")).toBeVisible();
});

test("the chart has axes, and each day's values show on hover and on keyboard focus", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const owner = await createUser(["admin"], "Chart Reader");
  // Two tasks yesterday, one today: a chart with something in it.
  await inDb(async (db) => {
    const at = (ms: number) => new Date(ms).toISOString();
    const rows = [Date.now() - DAY, Date.now() - DAY, Date.now()].map((ms) => ({
      id: randomUUID(),
      type: "report.generate",
      status: "completed" as const,
      user_id: owner.id,
      payload: null,
      result: null,
      created_at: at(ms),
      updated_at: at(ms),
      completed_at: at(ms),
    }));
    await db.insertInto("task").values(rows).execute();
  });
  await login(owner);
  const chart = page.getByRole("group", { name: /Your tasks: 3 in 14 days/ });
  await expect(chart).toBeVisible();
  await expect(chart.getByTestId("y-tick").first()).toHaveText("0");
  await expect(chart.getByTestId("y-tick")).not.toHaveCount(0);
  const tooltip = page.getByTestId("chart-tooltip");
  await expect(tooltip).toHaveCount(0);

  // One tab stop: today's column, named with its values; the tooltip shows them too.
  const today = chart.getByRole("img", { name: /: .*Your tasks 1/ }).last();
  await tabTo(page, today);
  await expect(tooltip).toBeVisible();
  await expect(tooltip).toContainText("Your tasks 1");
  await page.keyboard.press("ArrowLeft");
  const yesterday = chart.getByRole("img", { name: /Your tasks 2/ });
  await expect(yesterday).toBeFocused();
  await expect(tooltip).toContainText("Your tasks 2");
  await page.keyboard.press("Home");
  await expect(tooltip).toContainText("Your tasks 0");
  await page.keyboard.press("Tab");
  await expect(tooltip).toHaveCount(0);
  // Shift+Tab comes back to the day last visited, not to each of the 14.
  await page.keyboard.press("Shift+Tab");
  await expect(tooltip).toContainText("Your tasks 0");
  await page.keyboard.press("Tab");

  await yesterday.hover();
  await expect(tooltip).toBeVisible();
  await expect(tooltip).toContainText("Your tasks 2");
  await page.mouse.move(0, 0);
  await expect(tooltip).toHaveCount(0);

  await yesterday.focus();
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(result.violations.map((v) => v.id)).toEqual([]);
  expect(problems).toEqual([]);
});

test("the report's demonstration controls are on the task history page for a super admin, not on the overview", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN);
  await expect(page.getByRole("button", { name: "Generate report" })).toBeVisible();
  await expect(page.getByLabel("Report duration (seconds)")).toHaveCount(0);
  await expect(page.getByText("Simulate a failure")).toHaveCount(0);
  await page.goto("/dashboard/tasks");
  await expect(page.getByRole("heading", { name: "Try the task system" })).toBeVisible();
  await expect(page.getByLabel("Report duration (seconds)")).toBeVisible();
  await page.goto("about:blank");
  await login(await createUser(["admin"], "Not A Super Admin"), page, "/dashboard/tasks");
  await expect(page.getByRole("heading", { name: "Try the task system" })).toHaveCount(0);
});

test("a super admin's setup checklist: what is left, a step marked done by keyboard, in English and German", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await inDb((db) => db.deleteFrom("system_setting").where("key", "=", "setup.backups").execute());
  const owner = await createUser(["super_admin"], `Owner ${randomUUID().slice(0, 6)}`);
  await login(owner, page, "/dashboard");
  const list = page.getByRole("region", { name: "Set up your workspace" });
  await expect(list).toBeVisible();
  // This server has a mail provider: that step is done; two-factor is not.
  await expect(list.getByRole("listitem").filter({ hasText: "Deliver email" })).toContainText("(done)");
  await expect(list.getByRole("listitem").filter({ hasText: "Protect your account" })).toContainText(
    "(to do)",
  );
  await expect(list.getByRole("link", { name: "Turn on two-factor" })).toHaveAttribute(
    "href",
    "/dashboard/settings/security",
  );
  const backups = list.getByRole("listitem").filter({ hasText: "Back up the database" });
  await tabTo(page, backups.getByRole("button", { name: "Backups are set up" }));
  await page.keyboard.press("Enter");
  await expect(backups).toContainText("(done)");
  await expect(backups.getByRole("button")).toHaveCount(0);
  const result = await axeBuilder(page).analyze();
  expect(result.violations.map((v) => v.id)).toEqual([]);

  await inDb((db) => db.updateTable("user").set({ locale: "de" }).where("id", "=", owner.id).execute());
  await page.context().clearCookies();
  await login(owner, page, "/dashboard");
  const german = page.getByRole("region", { name: "Arbeitsbereich einrichten" });
  await expect(german.getByRole("listitem").filter({ hasText: "Die Datenbank sichern" })).toContainText(
    "(erledigt)",
  );
  await expect(german.getByRole("link", { name: "Zwei-Faktor einschalten" })).toBeVisible();
  expect(problems).toEqual([]);
});

test("width: the chart's labels read at 11 px or more on a phone, and the overview uses a wide screen", async ({
  page,
}) => {
  const problems = watchConsole(page);
  const admin = await createUser(["admin"], "Width Checker");
  await page.setViewportSize({ width: 390, height: 844 });
  // Through the form: the sign-in is the chart's activity (it shows only with some), whatever
  // other specs of this worker did before.
  await signIn(page, admin.email, E2E_PASSWORD);
  const chart = page.getByTestId("activity-chart");
  await expect(chart).toBeVisible();
  // Rendered size, not the font-size in the svg's own units, which scale with its width.
  await expect
    .poll(() =>
      chart
        .locator("text")
        .first()
        .evaluate((el) => el.getBoundingClientRect().height),
    )
    .toBeGreaterThanOrEqual(11);

  await page.setViewportSize({ width: 1440, height: 900 });
  const main = page.getByRole("main");
  const content = main.locator(":scope > *").first();
  const [mainBox, contentBox] = [await main.boundingBox(), await content.boundingBox()];
  // The content fills the main region but for its padding (64 px at this width).
  expect(contentBox!.width).toBeGreaterThan(mainBox!.width - 80);
  expect(problems).toEqual([]);
});

import type { Page } from "@playwright/test";
import { createUser, expect, test, watchConsole } from "./fixtures";

async function startReport(page: Page, seconds: string, fail = false) {
  await page.getByLabel("Report duration (seconds)").fill(seconds);
  if (fail) await page.getByLabel("Simulate a failure").check();
  await page.getByRole("button", { name: "Generate report" }).click();
}

function taskCentre(page: Page) {
  return page.getByRole("dialog", { name: "Task centre" });
}

test("a report goes from running to completed live, and only its owner sees it", async ({
  login,
  page,
  browser,
}) => {
  const problems = watchConsole(page);
  const owner = await createUser(["user"], "Task Owner");
  await login(owner);

  await startReport(page, "3");
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  const item = taskCentre(page).getByTestId("task-item").first();
  await expect(item).toContainText("System report");
  await expect(item).toContainText(/Waiting|Running/);
  await expect(page.getByRole("button", { name: "Tasks, 1 running" })).toBeVisible();
  await expect(item).toContainText("Completed", { timeout: 20_000 });
  await expect(page.getByRole("button", { name: "Tasks, 0 running" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "System report finished." })).toBeVisible();

  await item.getByText("View result").click();
  await expect(item.getByTestId("task-result")).toContainText('"title": "System report"');

  // Another user, in another browser context, sees nothing of it.
  const other = await createUser(["user"], "Someone Else");
  const context = await browser.newContext();
  const otherPage = await context.newPage();
  await login(other, otherPage);
  await otherPage.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  await expect(taskCentre(otherPage).getByText("No tasks yet.")).toBeVisible();
  await expect(taskCentre(otherPage).getByTestId("task-item")).toHaveCount(0);
  await context.close();

  expect(problems).toEqual([]);
});

test("a failing task shows its error", async ({ login, page }) => {
  const owner = await createUser(["user"], "Failing Owner");
  await login(owner);
  await startReport(page, "0.5", true);
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  const item = taskCentre(page).getByTestId("task-item").first();
  await expect(item).toContainText("Failed", { timeout: 20_000 });
  await expect(item.getByTestId("task-error")).toContainText("payload.fail");
  await expect(page.getByRole("status").filter({ hasText: "System report failed" })).toBeVisible();
});

test("a completion that happens while the page is away is there after reconnecting", async ({
  login,
  page,
}) => {
  const owner = await createUser(["manager"], "Export Owner");
  await login(owner);
  await page.getByRole("button", { name: "Export users" }).click();
  // Leave and come back: the task list is rebuilt from GET /api/tasks.
  await page.goto("about:blank");
  await page.goto("/dashboard");
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  const item = taskCentre(page).getByTestId("task-item").first();
  await expect(item).toContainText("Completed");
  await expect(item.getByRole("link", { name: "Download CSV" })).toHaveAttribute(
    "href",
    /\/api\/tasks\/.+\/download$/,
  );
});

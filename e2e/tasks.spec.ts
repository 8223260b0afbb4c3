import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

/**
 * The demo controls (duration, simulated failure) exist for super admins only, on the task history
 * page; without them, the overview's plain "Generate report".
 */
async function startReport(page: Page, seconds?: string, fail = false) {
  if (seconds !== undefined) {
    await page.goto("/dashboard/tasks");
    await page.getByLabel("Report duration (seconds)").fill(seconds);
  }
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
  // Staff see no developer controls.
  await expect(page.getByText("Simulate a failure")).toHaveCount(0);
  await expect(page.getByLabel("Report duration (seconds)")).toHaveCount(0);
  const card = page.getByTestId("tasks-card");
  await expect(card).toContainText("0 completed");

  await startReport(page);
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  const item = taskCentre(page).getByTestId("task-item").first();
  await expect(item).toContainText("System report");
  await expect(item).toContainText(/Waiting|Running/);
  await expect(page.getByRole("button", { name: "Tasks, 1 running" })).toBeVisible();
  await expect(item).toContainText("Completed", { timeout: 20_000 });
  await expect(page.getByRole("button", { name: "Tasks, 0 running" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "System report finished." })).toBeVisible();

  // The result in words, not JSON; the home card followed without a reload.
  await expect(item.getByTestId("task-result")).toContainText(/\d+ users · \d+ roles/);
  await expect(item).not.toContainText("{");
  await expect(card).toContainText("1 completed");

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

test("a super admin can simulate a failure; the task shows its error in words", async ({ login, page }) => {
  await login(E2E_ADMIN);
  await startReport(page, "0.5", true);
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  const item = taskCentre(page).getByTestId("task-item").first();
  await expect(item).toContainText("Failed", { timeout: 20_000 });
  await expect(item.getByTestId("task-error")).toContainText("simulated failure");
  await expect(item.getByTestId("task-error")).not.toContainText("payload");
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

test("two audit exports are told apart by their filters in the task centre; the finished toast links to the file", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await login(E2E_ADMIN, page, "/dashboard/logs?action=auth.login.succeeded");
  await tabTo(page, page.getByRole("button", { name: "Export CSV" }));
  await page.keyboard.press("Enter");
  const finished = page
    .getByRole("status")
    .filter({ hasText: "Audit log export (CSV · Signed in) finished." });
  await expect(finished).toBeVisible({ timeout: 20_000 });
  const fromToast = finished.getByRole("link", { name: "Download CSV" });
  await expect(fromToast).toHaveAttribute("href", /^\/api\/tasks\/[0-9a-f-]{36}\/download$/);
  const [file] = await Promise.all([page.waitForEvent("download"), fromToast.click()]);
  expect(file.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/);

  await page.goto("/dashboard/logs?actor=root%40e2e.test&from=2020-01-01");
  await tabTo(page, page.getByRole("button", { name: "Export JSON Lines" }));
  await page.keyboard.press("Enter");
  await expect(
    page.getByRole("status").filter({
      hasText: "Audit log export (JSON Lines · actor “root@e2e.test” · from 1 Jan 2020) finished.",
    }),
  ).toBeVisible({ timeout: 20_000 });

  const centre = page.getByRole("button", { name: /^Tasks, \d+ running$/ });
  await centre.focus();
  await page.keyboard.press("Enter");
  const exports = taskCentre(page).getByTestId("task-item").filter({ hasText: "Audit log export" });
  // Newest first; earlier tests of this worker may have left older exports of the super admin's below.
  await expect(exports.nth(0).getByTestId("task-input")).toHaveText(
    "JSON Lines · actor “root@e2e.test” · from 1 Jan 2020",
  );
  await expect(exports.nth(1).getByTestId("task-input")).toHaveText("CSV · Signed in");
  await expect(exports.first().getByRole("link", { name: "Download JSON Lines" })).toBeVisible();
  await expect(exports.nth(1).getByRole("link", { name: "Download CSV" })).toBeVisible();
  expect(problems).toEqual([]);
});

test("a completion still arrives after the event stream was refused (503) and the browser gave up on it", async ({
  login,
  page,
}) => {
  // Every /api/events answers 503 until the task is done: the browser closes its EventSource for
  // good, and the tab must re-create it (app/events/event-source.ts) to hear of the completion.
  let refused = true;
  const opened: string[] = [];
  await page.route("**/api/events**", async (route) => {
    opened.push(new URL(route.request().url()).pathname);
    if (refused) await route.fulfill({ status: 503, body: "" });
    else await route.continue();
  });
  await login(E2E_ADMIN);
  await startReport(page, "1");
  await expect.poll(() => opened.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await expect
    .poll(
      async () => {
        const { tasks } = (await (await page.request.get("/api/tasks?limit=1")).json()) as {
          tasks: { status: string }[];
        };
        return tasks[0]?.status;
      },
      { timeout: 20_000 },
    )
    .toBe("completed");
  refused = false;
  await expect(page.getByRole("status").filter({ hasText: "System report finished." })).toBeVisible({
    timeout: 30_000,
  });
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  await expect(taskCentre(page).getByTestId("task-item").first()).toContainText("Completed");
});

test("the home card follows a task started by keyboard to completion, without reload", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const owner = await createUser(["user"], "Keyboard Task Owner");
  await login(owner);
  const card = page.getByTestId("tasks-card");
  await expect(card).toContainText("0 waiting · 0 running · 0 completed");
  const button = page.getByRole("button", { name: "Generate report" });
  await button.focus();
  await page.keyboard.press("Enter");
  await expect(card).toContainText("1 completed", { timeout: 20_000 });
  // An empty chart says so rather than showing empty bars, until there is something to show.
  await expect(page.getByRole("group", { name: /Your tasks: 1 in 14 days/ })).toBeVisible();
  expect(problems).toEqual([]);
});

test("a plain user with nothing yet sees that said, not an empty chart", async ({ login, page }) => {
  await login(await createUser(["user"], "Empty Chart User"));
  await expect(page.getByTestId("chart-empty")).toHaveText("You have started no tasks in the last 14 days.");
});

// Axe scans the home of every role in e2e/a11y.spec.ts's sweep; what only a phone shows is here.
test("phone: the home's stat cards sit two to a row", async ({ login, page }) => {
  const problems = watchConsole(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await login(E2E_ADMIN, page, "/dashboard");
  const tops = await page
    .getByTestId("overview-cards")
    .locator(":scope > section")
    .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().top));
  expect(tops.length).toBeGreaterThanOrEqual(2);
  expect(tops[0]).toBe(tops[1]);
  expect(problems).toEqual([]);
});

type Seeded = { type: string; status: string; payload?: unknown; file?: string };

/** Tasks of `userId`'s straight in the e2e database, oldest first, one second apart. */
async function seedTasks(userId: string, tasks: Seeded[]) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    const start = Date.now() - 60 * 60_000;
    const ids: string[] = [];
    for (const [i, task] of tasks.entries()) {
      const id = randomUUID();
      const at = new Date(start + i * 1000).toISOString();
      const final = task.status === "completed" || task.status === "failed";
      const result = task.file
        ? { rows: 1, filename: task.file, downloadUrl: `/api/tasks/${id}/download` }
        : task.status === "failed"
          ? { error: "The report failed, as asked: this was a simulated failure." }
          : final
            ? { users: 1, roles: 1 }
            : null;
      await db
        .insertInto("task")
        .values({
          id,
          type: task.type,
          status: task.status as "completed",
          user_id: userId,
          payload: task.payload === undefined ? null : JSON.stringify(task.payload),
          result: result && JSON.stringify(result),
          created_at: at,
          updated_at: new Date().toISOString(),
          completed_at: final ? at : null,
        })
        .execute();
      if (task.file)
        await db
          .insertInto("task_artifact")
          .values({
            task_id: id,
            filename: task.file,
            content_type: "text/csv",
            content: "time,action\n",
            created_at: at,
          })
          .execute();
      ids.push(id);
    }
    return ids;
  } finally {
    await db.destroy();
  }
}

async function taskIds(userId: string) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return (await db.selectFrom("task").select("id").where("user_id", "=", userId).execute()).map(
      (r) => r.id,
    );
  } finally {
    await db.destroy();
  }
}

test("the task history by keyboard: one's own tasks, filters in the URL, a file downloaded, finished ones cleared behind a confirmation", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const owner = await createUser(["admin"], `History Owner ${randomUUID().slice(0, 6)}`);
  const other = await createUser(["admin"], "History Other");
  const [exported, failed, running] = await seedTasks(owner.id, [
    {
      type: "audit.export",
      status: "completed",
      payload: { action: "user.update", format: "csv" },
      file: "audit.csv",
    },
    { type: "report.generate", status: "failed" },
    { type: "report.generate", status: "processing" },
  ]);
  const [theirs] = await seedTasks(other.id, [
    { type: "audit.export", status: "completed", payload: { actor: "OtherMarker" }, file: "x.csv" },
  ]);
  await login(owner);

  // From the task centre, by keyboard.
  const centre = page.getByRole("button", { name: /^Tasks, \d+ running$/ });
  await tabTo(page, centre);
  await page.keyboard.press("Enter");
  await tabTo(page, taskCentre(page).getByRole("link", { name: "All your tasks" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/tasks$/);
  await expect(page.getByRole("heading", { level: 1, name: "Your tasks" })).toBeVisible();
  const items = page.getByTestId("task-history-item");
  await expect(items).toHaveCount(3);
  await expect(page.getByTestId("task-history")).not.toContainText("OtherMarker");
  await expect(items.nth(0)).toContainText("System report");
  await expect(items.nth(0)).toContainText("Running");
  await expect(items.nth(0).getByRole("button", { name: /^Clear/ })).toHaveCount(0);
  await expect(items.nth(1)).toContainText("simulated failure");
  await expect(items.nth(2).getByTestId("task-input")).toHaveText(
    "CSV · Changed a user (name, email, roles)",
  );

  // Filters apply at once and live in the URL.
  await tabTo(page, page.getByLabel("Type"));
  await page.keyboard.type("Audit log export");
  await expect(page).toHaveURL(/type=audit\.export/);
  await expect(items).toHaveCount(1);
  const download = items.first().getByRole("link", { name: "Download CSV" });
  await tabTo(page, download);
  const [file] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  expect(file.suggestedFilename()).toBe("audit.csv");

  await tabTo(page, page.getByLabel("Status"));
  await page.keyboard.type("Failed");
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.getByText("None of your tasks match these filters.")).toBeVisible();
  await tabTo(page, page.getByLabel("Type"), { back: true });
  await page.keyboard.type("Any type");
  await expect(page).not.toHaveURL(/type=audit/);
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText("Failed");
  await page.goto("/dashboard/tasks");

  // Clearing the finished ones asks first, and leaves the running one (and everyone else's).
  const clear = page.getByRole("button", { name: "Clear finished tasks" });
  await tabTo(page, clear);
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Clear 2 finished tasks?" });
  await expect(dialog).toContainText("Waiting and running tasks stay.");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await axeClean(page);
  await tabTo(page, dialog.getByRole("button", { name: "Clear 2 tasks" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "2 finished tasks cleared." })).toBeVisible();
  await expect(items).toHaveCount(1);
  await expect(clear).toHaveCount(0);
  expect(await taskIds(owner.id)).toEqual([running]);
  expect(await taskIds(other.id)).toEqual([theirs]);
  expect([exported, failed]).not.toContain(running);
  await axeClean(page);
  expect(problems).toEqual([]);
});

test("the task history pages by keyboard, and clears one task from its own row; the user menu leads there", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const owner = await createUser(["user"], "History Pager");
  const ids = await seedTasks(
    owner.id,
    Array.from({ length: 26 }, () => ({ type: "report.generate", status: "completed" })),
  );
  await login(owner);
  await tabTo(page, page.getByRole("button", { name: /user menu$/ }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menuitem", { name: "Settings" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "Your tasks" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/tasks$/);
  const items = page.getByTestId("task-history-item");
  await expect(items).toHaveCount(25);
  await tabTo(page, page.getByRole("link", { name: "Older tasks" }));
  await page.keyboard.press("Enter");
  await expect(items).toHaveCount(1);
  await expect(page.getByTestId("page-range")).toContainText("26");

  const clearOne = items.first().getByRole("button", { name: /^Clear System report, started / });
  await tabTo(page, clearOne);
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Clear this System report?" });
  await tabTo(page, dialog.getByRole("button", { name: "Clear task" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Task cleared." })).toBeVisible();
  const left = await taskIds(owner.id);
  expect(left).toHaveLength(25);
  expect(left).not.toContain(ids[0]);
  expect(problems).toEqual([]);
});

async function axeClean(page: Page) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
  ).toEqual([]);
}

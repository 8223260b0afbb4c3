import { E2E_ADMIN } from "./env";
import { createUser, expect, signIn, test } from "./fixtures";

test("an admin changes a user's roles and that user's sidebar follows", async ({ login, page, browser }) => {
  const person = await createUser(["user"], "Role Changer Target");
  const other = await browser.newContext();
  const theirPage = await other.newPage();
  await login(person, theirPage);
  await expect(theirPage.getByTestId("sidebar").getByRole("link")).toHaveText(["Dashboard", "Settings"]);

  await login(E2E_ADMIN);
  await page.goto(`/dashboard/users?q=${encodeURIComponent(person.email)}`);
  await page.getByRole("link", { name: "Role Changer Target" }).click();
  await expect(page.getByRole("heading", { name: "Role Changer Target" })).toBeVisible();
  await page.getByRole("checkbox", { name: "Manager" }).check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

  await theirPage.reload();
  await expect(theirPage.getByTestId("sidebar").getByRole("link")).toHaveText([
    "Dashboard",
    "Users",
    "Teams",
    "Settings",
  ]);
  await other.close();
});

test("an admin creates a team and adds a member", async ({ login, page }) => {
  const member = await createUser(["user"], "Teammate Zed");
  await login(E2E_ADMIN);
  await page.getByTestId("sidebar").getByRole("link", { name: "Teams" }).click();
  await page.getByLabel("Team name").fill("Release Crew");
  await page.getByLabel("Description").fill("Ships things");
  await page.getByRole("button", { name: "Create team" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Release Crew" })).toBeVisible();
  // The server-side search combobox (keyboard use is in teams.spec.ts): a click picks the person.
  await page.getByRole("button", { name: "Add members" }).click();
  await page.getByRole("combobox", { name: "Find a user by name or email" }).fill("Teammate Zed");
  await page.getByRole("option", { name: /Teammate Zed/ }).click();
  await page.getByRole("button", { name: "Add 1 member" }).click();
  const members = page.getByRole("table", { name: "Members of Release Crew" });
  await expect(members).toContainText("Teammate Zed");
  await members.getByRole("link", { name: "Teammate Zed" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/users/${member.id}$`));
  await expect(page.getByRole("link", { name: "Release Crew" })).toBeVisible();
});

test("an admin creates a custom role and edits a menu item, which the sidebar shows at once", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN);
  await page.getByTestId("sidebar").getByRole("link", { name: "Access Control" }).click();
  // Roles are created on the Roles tab; the matrix is the Permissions tab, the menu its own tab.
  await page.getByRole("tab", { name: "Roles" }).click();
  await page.getByLabel("Name", { exact: true }).fill("support_agent");
  await page.getByLabel("Label", { exact: true }).fill("Support Agent");
  await page.getByRole("checkbox", { name: "View Users" }).last().check();
  await page.getByRole("button", { name: "Create role" }).click();
  await expect(page.getByRole("status").filter({ hasText: 'Role "Support Agent" created.' })).toBeVisible();
  await page.getByRole("tab", { name: "Permissions" }).click();
  await expect(page.getByRole("columnheader", { name: /Support Agent/ })).toBeVisible();
  await expect(page.getByRole("checkbox", { name: "Support Agent: View Users" })).toBeChecked();

  // The menu editor is one form with one Save.
  await page.getByRole("tab", { name: "Menu" }).click();
  const rows = page.locator("li[data-item]");
  const index = await rows.evaluateAll((items) =>
    items.findIndex(
      (item) => item.querySelector<HTMLSelectElement>('select[name$="url"]')?.value === "/dashboard/teams",
    ),
  );
  expect(index).toBeGreaterThanOrEqual(0);
  const teamsRow = rows.nth(index);
  await teamsRow.getByLabel("Title").fill("Squads");
  await page.getByRole("button", { name: "Save menu" }).click();
  await expect(page.getByTestId("sidebar").getByRole("link", { name: "Squads" })).toBeVisible();

  // Put it back for the tests that run after this one on the same server.
  await teamsRow.getByLabel("Title").fill("Teams");
  await page.getByRole("button", { name: "Save menu" }).click();
  await expect(page.getByTestId("sidebar").getByRole("link", { name: "Teams" })).toBeVisible();
});

test("the audit log filters by action and expands a row", async ({ page }) => {
  // Through the form: the other specs sign in with the fixture, which writes no sign-in row.
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await page.getByTestId("sidebar").getByRole("link", { name: "Audit Logs" }).click();
  // Filters apply on change; rows show the action's label, not its key.
  await page.getByLabel("Action").selectOption("auth.login.succeeded");
  await expect(page).toHaveURL(/action=auth\.login\.succeeded/);
  const rows = page.getByTestId("audit-row");
  await expect(rows.first()).toContainText("Signed in");
  await expect(page.getByRole("table", { name: /Audit entries/ })).not.toContainText("Failed sign-in");
  await rows.first().locator("summary").click();
  await expect(rows.first()).toContainText("Browser:");

  // Export the filtered view: a background task whose CSV link appears in the task centre.
  await page.getByRole("button", { name: "Export CSV" }).click();
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  const item = page.getByRole("dialog", { name: "Task centre" }).getByTestId("task-item").first();
  await expect(item).toContainText("Audit log export");
  await expect(item).toContainText("Completed");
  const link = item.getByRole("link", { name: "Download CSV" });
  const response = await page.request.get((await link.getAttribute("href"))!);
  expect(response.status()).toBe(200);
  const csv = await response.text();
  expect(csv.split("\n")[0]).toContain('"time","action","actor"');
  expect(csv).toContain("auth.login.succeeded");
  expect(csv).not.toContain("auth.login.failed");
});

import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB, E2E_PASSWORD } from "./env";
import { axeBuilder, createUser, expect, test, watchConsole } from "./fixtures";

// "View as": a super admin opens a user, views the dashboard as them (banner, their sidebar), finds
// the password form locked, and stops, back as themselves. All by keyboard; axe finds nothing.

test("view as a user, password locked, stop", async ({ login, page }) => {
  // The refused password change answers 403 on purpose.
  const problems = watchConsole(page, { allowStatus: [403] });
  const target = await createUser(["user"], "Viewed Person");
  await login(E2E_ADMIN);
  const sidebar = page.getByRole("navigation", { name: "Main" });
  await expect(sidebar.getByRole("link", { name: "Users" })).toBeVisible();

  await page.goto(`/dashboard/users/${target.id}`);
  const viewAs = page.getByRole("button", { name: "View as Viewed Person" });
  await viewAs.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);

  const banner = page.getByRole("region", { name: "Viewing as another person" });
  await expect(banner).toContainText("viewing as Viewed Person");
  await expect(banner).toContainText(E2E_ADMIN.email);
  await expect(banner).toContainText(/(30|29) minutes left/);
  // Their sidebar: a plain user has no Users page.
  await expect(sidebar.getByRole("link", { name: "Settings" })).toBeVisible();
  await expect(sidebar.getByRole("link", { name: "Users" })).toHaveCount(0);
  const found = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(found.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(" | ")}`)).toEqual([]);

  // The banner is on every page, and the password form refuses.
  await page.goto("/dashboard/settings#security");
  await expect(banner).toBeVisible();
  await page.locator("#settings-password-currentPassword").fill(E2E_PASSWORD);
  await page.locator("#settings-password-newPassword").fill("an entirely new passphrase");
  await page.locator("#settings-password-confirm").fill("an entirely new passphrase");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText(/viewing as another person/i).first()).toBeVisible();
  await expect(banner).toBeVisible();

  // Stop, by keyboard: back on the user's page as the super admin.
  const stop = banner.getByRole("button", { name: "Stop viewing as Viewed Person" });
  await stop.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/dashboard/users/${target.id}$`));
  await expect(banner).toHaveCount(0);
  await expect(sidebar.getByRole("link", { name: "Users" })).toBeVisible();
  await expect(
    page.getByRole("status").filter({ hasText: "You stopped viewing as Viewed Person." }),
  ).toBeVisible();
  expect(problems).toEqual([]);
});

// docs/decisions/021-impersonation.md: the gate (a password an admin set) is the person's, not the viewer's.
test("view as someone who must change their password: the dashboard, the banner, stop", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const target = await createUser(["user"], "Temporary Password");
  const db = createDb(`file:${E2E_DB}`);
  try {
    await db.updateTable("user").set({ must_change_password: 1 }).where("id", "=", target.id).execute();
  } finally {
    await db.destroy();
  }
  await login(E2E_ADMIN, page, `/dashboard/users/${target.id}`);
  await page.getByRole("button", { name: "View as Temporary Password" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  const banner = page.getByRole("region", { name: "Viewing as another person" });
  await expect(banner).toContainText("viewing as Temporary Password");
  await page.reload();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(banner).toBeVisible();
  await page.goto("/dashboard/settings");
  await expect(banner).toBeVisible();

  await banner.getByRole("button", { name: "Stop viewing as Temporary Password" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/users/${target.id}$`));
  await expect(banner).toHaveCount(0);
  expect(problems).toEqual([]);
});

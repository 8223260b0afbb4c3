import { E2E_ADMIN } from "./env";
import { createUser, expect, signIn, test, watchConsole } from "./fixtures";

const ALL = ["Dashboard", "Users", "Teams", "Access Control", "Audit Logs", "Settings", "Broadcast"];

test("super admin signs in through the form and sees the seven-item sidebar", async ({ page }) => {
  const problems = watchConsole(page);
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password);
  const sidebar = page.getByTestId("sidebar");
  await expect(sidebar.getByRole("link")).toHaveText(ALL);
  await expect(sidebar.getByRole("link", { name: "Dashboard" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { name: "Welcome, Super Admin" })).toBeVisible();
  await expect(page.getByTestId("my-roles")).toContainText("Super Admin");
  expect(problems).toEqual([]);
});

test("a bad password shows one message and stays on /login", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(E2E_ADMIN.email);
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("alert")).toHaveText("Invalid email or password.");
  await expect(page).toHaveURL(/\/login/);
});

test("sidebar follows the role: user, manager and guest", async ({ login, page }) => {
  const user = await createUser(["user"]);
  await login(user);
  await expect(page.getByTestId("sidebar").getByRole("link")).toHaveText(["Dashboard", "Settings"]);
  await page.getByRole("button", { name: /user menu/i }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);

  const manager = await createUser(["manager"]);
  await login(manager);
  await expect(page.getByTestId("sidebar").getByRole("link")).toHaveText([
    "Dashboard",
    "Users",
    "Teams",
    "Settings",
  ]);
  await page.context().clearCookies();

  const guest = await createUser(["guest"]);
  await login(guest);
  await expect(page.getByTestId("no-access")).toBeVisible();
  await expect(page.getByRole("heading", { name: "No access" })).toBeVisible();
  await expect(page.getByTestId("roles-giving")).toHaveText(
    "Roles that give it: Super Admin, Administrator, Manager, User.",
  );
  await expect(page.getByTestId("sidebar")).toHaveCount(0);
});

test("a signed-out visit to a page returns there after sign-in", async ({ page }) => {
  await page.goto("/dashboard?from=link");
  await expect(page).toHaveURL(/\/login\?redirectTo=/);
  await page.getByLabel("Email").fill(E2E_ADMIN.email);
  await page.getByLabel("Password").fill(E2E_ADMIN.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard\?from=link$/);
});

test("the phone layout collapses the sidebar behind a menu button", async ({ login, page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await login(E2E_ADMIN);
  const open = page.getByRole("button", { name: "Open menu" });
  await expect(open).toBeVisible();
  await open.click();
  await expect(page.getByTestId("sidebar").getByRole("link", { name: "Settings" })).toBeInViewport();
});

import { E2E_ADMIN } from "./env";
import { createUser, expect, signIn, test } from "./fixtures";

test("a broadcast to a role reaches its holders live, and nobody else", async ({ login, page, browser }) => {
  const manager = await createUser(["manager"], "Live Manager");
  const plain = await createUser(["user"], "Plain User");

  const managerContext = await browser.newContext();
  const managerPage = await managerContext.newPage();
  await login(manager, managerPage);
  const userContext = await browser.newContext();
  const userPage = await userContext.newPage();
  await login(plain, userPage);
  // Both are connected to the event stream before the notice goes out.
  await expect(managerPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();
  await expect(userPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();
  await managerPage.waitForTimeout(500);

  await login(E2E_ADMIN);
  await page.getByTestId("sidebar").getByRole("link", { name: "Broadcast" }).click();
  await page.getByLabel("Title").fill("Release tonight");
  await page.getByLabel("Message").fill("Deploy at 22:00 UTC");
  await page.getByLabel("Level").selectOption("warning");
  await page.getByRole("radio", { name: "Roles" }).check();
  await page.getByRole("checkbox", { name: "Manager" }).check();
  await page.getByRole("button", { name: "Send notice" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Sent to \d+ (person|people)/ })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Roles: Manager" }).first()).toBeVisible();

  // Live, without reload: a toast and the bell count.
  await expect(
    managerPage.getByRole("status").filter({ hasText: "Release tonight: Deploy at 22:00 UTC" }),
  ).toBeVisible();
  await expect(managerPage.getByRole("button", { name: /Notifications, 1 unread/ })).toBeVisible();
  await managerPage.getByRole("button", { name: /Notifications/ }).click();
  await expect(managerPage.getByRole("dialog", { name: "Notifications" })).toContainText("Release tonight");
  await managerPage.getByRole("button", { name: "Mark all as read" }).click();
  await expect(managerPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();

  await userPage.waitForTimeout(1000);
  await expect(userPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();
  await expect(userPage.getByText("Release tonight")).toHaveCount(0);
  await managerContext.close();
  await userContext.close();
});

test("the overview shows cards the viewer may see", async ({ login, page }) => {
  const plain = await createUser(["user"], "Overview User");
  await login(plain);
  const cards = page.getByTestId("overview-cards");
  await expect(cards).toContainText("Your tasks");
  await expect(cards).not.toContainText("Users");
  await page.context().clearCookies();
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password); // the form: its sign-in audit row is what the card shows
  await expect(page.getByTestId("overview-cards")).toContainText("Users");
  await expect(page.getByRole("img", { name: /Sign-ins: \d+ in 14 days/ })).toBeVisible();
  await expect(page.getByTestId("recent-activity")).toContainText("auth.login.succeeded");
});

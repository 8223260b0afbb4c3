import { E2E_PASSWORD } from "./env";
import {
  axeBuilder,
  createUser,
  expect,
  signIn,
  tabTo,
  test,
  waitForHydration,
  watchConsole,
} from "./fixtures";
import { linkFromMail, receivedMail } from "./mail";

// New sign-in alerts in the browser: the first sign-in is silent, a second browser's sign-in
// sends the email, both devices are listed in Settings, and its "This wasn't me" link (a button,
// never the GET) signs the account out everywhere, the first browser included.

const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

test("a sign-in from a new browser is emailed; This wasn't me ends every session", async ({
  page,
  browser,
}) => {
  const problems = watchConsole(page);
  const user = await createUser(["user"], "Alert Person");
  await signIn(page, user.email, E2E_PASSWORD);
  expect((await receivedMail(user.email)).filter((m) => m.Tag === "sign-in-alert")).toEqual([]);

  const other = await browser.newContext({
    userAgent: FIREFOX,
    baseURL: page.url().replace(/\/dashboard.*$/, ""),
  });
  const stranger = await other.newPage();
  await signIn(stranger, user.email, E2E_PASSWORD);
  const link = await linkFromMail(user.email, "sign-in-alert", "/account/not-me?token=");

  await page.goto("/dashboard/settings/security");
  const devices = page.getByTestId("known-devices");
  await expect(devices.getByRole("listitem")).toHaveCount(2);
  await expect(devices.getByRole("listitem").filter({ hasText: "This device" })).toHaveCount(1);
  await expect(devices).toContainText("Firefox on Windows 10");
  const scan = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(scan.violations.map((v) => v.id)).toEqual([]);

  // The person opens the link from their email in the first browser, by keyboard.
  await page.goto(link.replace(/^https?:\/\/[^/]+/, ""));
  await waitForHydration(page);
  await expect(page.getByRole("heading", { name: "This sign-in was not you?" })).toBeVisible();
  await tabTo(page, page.getByRole("button", { name: "Sign out everywhere and reset my password" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("Every session has ended");
  const reset = await linkFromMail(user.email, "reset-password", "/reset-password?token=");
  expect(reset).toContain("/reset-password?token=");

  await stranger.goto("/dashboard");
  await expect(stranger).toHaveURL(/\/login/);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/login/);
  await other.close();
  expect(problems).toEqual([]);
});

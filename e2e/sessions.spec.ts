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
  const phone = await browser.newContext();
  try {
    const laptopPage = await laptop.newPage();
    const phonePage = await phone.newPage();
    await login(person, laptopPage);
    await login(person, phonePage);
    const problems = watchConsole(page);
    await login(admin, page, "/dashboard/users");
    await page.getByRole("link", { name: "Sessions", exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
    await page.getByLabel("Person").fill(`Pat Two Browsers ${suffix}`);
    await page.getByLabel("Person").press("Enter");
    const rows = page.getByTestId("session-row");
    await expect(rows).toHaveCount(2);
    expect((await axeBuilder(page).analyze()).violations).toEqual([]);
    await rows.first().getByRole("button", { name: /End/ }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByText("1 session ended.")).toBeVisible();
    await expect(rows).toHaveCount(1);

    // One of the two browsers is signed out at its next page, the other goes on.
    const landed = [];
    for (const browserPage of [laptopPage, phonePage]) {
      await browserPage.goto("/dashboard/teams");
      landed.push(new URL(browserPage.url()).pathname);
    }
    expect(landed.sort()).toEqual(["/dashboard/teams", "/login"]);
    expect(problems).toEqual([]);
  } finally {
    await laptop.close();
    await phone.close();
  }
});

test("a role's sign-in policy: a rule locking out its author is refused, another is checked and saved", async ({
  login,
  page,
}) => {
  const admin = await createUser(["admin"], "Nia Networks");
  // The test's browser is on 127.0.0.1: a rule on a role its author holds, without that address,
  // would shut them out, and is refused (nothing saved).
  await login(admin, page, "/dashboard/access/roles/admin/policy");
  await page.getByLabel("Allowed networks").fill("10.0.0.0/8");
  await page.getByRole("button", { name: "Save rule" }).click();
  await expect(page.getByText(/would lock you out/)).toBeVisible();
  await expect(page.getByTestId("current-networks")).toHaveText("Anywhere: no network rule.");

  // A role of the test's own, created on the page, so no other test's people hold it.
  const role = `vpn_${Math.random().toString(36).slice(2, 8)}`;
  await page.goto("/dashboard/access?tab=roles");
  await page.getByLabel("Name", { exact: true }).fill(role);
  await page.getByLabel("Label", { exact: true }).fill(role);
  await page.getByRole("button", { name: "Create role" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Role "${role}" created.` })).toBeVisible();
  await page.getByRole("link", { name: `Sign-in policy of ${role}` }).click();
  await expect(page.getByRole("heading", { name: `Sign-in policy: ${role}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("current-networks")).toHaveText("Anywhere: no network rule.");
  const networks = page.getByLabel("Allowed networks");
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
  // The session limits on a fresh load of the page, then read back after another.
  await page.reload();
  await page.getByLabel("Idle timeout (minutes)").fill("30");
  await page.getByRole("button", { name: "Save session limits" }).click();
  await expect(page.getByText(`Session limits of ${role} saved.`)).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Idle timeout (minutes)")).toHaveValue("30");
});

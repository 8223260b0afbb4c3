import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { type Idp, startIdp } from "../test/support/oidc-idp";
import { createUser } from "../test/support/users";
import { E2E_ADMIN, E2E_DB, E2E_PASSWORD, E2E_PORT } from "./env";
import { axeBuilder, expect, test, watchConsole } from "./fixtures";

// Single sign-on end to end: a super admin adds a provider (a real OpenID Connect provider the
// test starts on 127.0.0.1) in Settings, signs out, and someone signs in with it by keyboard,
// landing on the dashboard with a new account.

// In order, on one worker (one server): the second test signs in with the provider the first adds.
test.describe.configure({ mode: "serial" });

const SLUG = "loopback";
let idp: Idp;

test.beforeAll(async () => {
  idp = await startIdp({ redirectUris: [`http://localhost:${E2E_PORT}/auth/oidc/${SLUG}/callback`] });
});

test.afterAll(async () => {
  await idp?.close();
  const db = createDb(`file:${E2E_DB}`);
  try {
    await db.deleteFrom("oidc_provider").where("slug", "=", SLUG).execute();
  } finally {
    await db.destroy();
  }
});

async function axe(page: Page) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`);
}

test("configure a provider in Settings, then sign in with it by keyboard", async ({ login, page }) => {
  const problems = watchConsole(page);
  await login(E2E_ADMIN, page, "/dashboard/settings/system");
  const menu = page.getByRole("navigation", { name: "Settings pages" });
  await expect(menu.getByRole("link", { name: "System" })).toHaveAttribute("aria-current", "page");
  await menu.getByRole("link", { name: "Single sign-on" }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings\/sso$/);
  await expect(page.getByRole("heading", { name: "Single sign-on", level: 2 })).toBeVisible();
  expect(await axe(page)).toEqual([]);

  const add = page.locator("#sso-new");
  await add.getByLabel("Button name").fill("Loopback IdP");
  await add.getByLabel("Identifier").fill(SLUG);
  await add.getByLabel("Issuer URL").fill(idp.issuer);
  await add.getByLabel("Client ID").fill(idp.clientId);
  await add.getByLabel("Client secret").fill(idp.clientSecret);
  await add.getByLabel("Allowed email domains").fill("sso.test");
  await add.getByLabel("Role for new accounts").selectOption({ label: "User" });
  await add.getByRole("button", { name: "Add provider" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Loopback IdP was added." })).toBeVisible();
  // The stored secret is never sent back.
  await expect(page.getByRole("heading", { name: "Loopback IdP" })).toBeVisible();
  expect(await page.content()).not.toContain(idp.clientSecret);
  expect(await axe(page)).toEqual([]);

  await page.getByRole("button", { name: /user menu/i }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  expect(await axe(page)).toEqual([]);

  idp.user = { sub: "e2e-casey", email: "casey@sso.test", email_verified: true, name: "Casey Single" };
  const button = page.getByRole("link", { name: "Sign in with Loopback IdP" });
  for (let i = 0; i < 10 && !(await button.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press("Tab");
  await expect(button).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText("Signed in as casey@sso.test.")).toBeVisible();
  expect(await axe(page)).toEqual([]);
  expect(problems).toEqual([]);
});

// Needs the provider the first test adds. The cookie that binds the held link to this browser is
// set on a redirect from the provider (another site): only a browser shows it comes back.
test("an admin's address is linked only after the account's password, once", async ({ page, context }) => {
  const problems = watchConsole(page, { allowStatus: [400] });
  const db = createDb(`file:${E2E_DB}`);
  const email = `dana-${Date.now()}@sso.test`;
  try {
    await createUser(db, { roles: ["admin"], email, name: "Dana Admin", password: E2E_PASSWORD });
  } finally {
    await db.destroy();
  }
  idp.user = { sub: `e2e-${email}`, email, email_verified: true };
  await page.goto("/login");
  await page.getByRole("link", { name: "Sign in with Loopback IdP" }).click();
  await expect(page).toHaveURL(/\/login\/sso-link$/);
  await expect(page.getByRole("heading", { name: "Confirm it's you", level: 1 })).toBeVisible();
  await expect(page.getByText(`Loopback IdP confirmed the address ${email}.`)).toBeVisible();
  expect(await axe(page)).toEqual([]);
  const password = page.getByLabel("Password");
  const confirm = page.getByRole("button", { name: "Confirm with password" });
  await password.fill("not the right password");
  await confirm.click();
  await expect(page.getByRole("alert")).toHaveText("That password is not right. Please try again.");
  await password.fill(E2E_PASSWORD);
  await confirm.click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText(`Signed in as ${email}.`)).toBeVisible();

  // Linked now: the next sign-in with the provider goes straight in.
  await page.goto("about:blank");
  await context.clearCookies();
  await page.goto("/login");
  await page.getByRole("link", { name: "Sign in with Loopback IdP" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(problems).toEqual([]);
});

test("a refused sign-in says why on the login page", async ({ page }) => {
  await page.goto("/login?sso=domain");
  await expect(page.getByRole("alert")).toHaveText(
    "Your email address is not allowed to sign in with this provider.",
  );
  expect(await axe(page)).toEqual([]);
});

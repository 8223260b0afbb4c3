import type { Page } from "@playwright/test";
import { E2E_PASSWORD } from "./env";
import { axeBuilder, createUser, expect, test, watchConsole } from "./fixtures";

// Passkeys in Chromium with the DevTools virtual authenticator (a platform authenticator that
// holds discoverable credentials and verifies its user): add one in Settings, sign out, sign in
// with it from the login page, remove it; by keyboard, and axe finds nothing on either page.

async function axe(page: Page) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`);
}

async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return {
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
  };
}

async function signOut(page: Page) {
  // Waited for from before the click: with a passkey offered in the autofill, the login page may
  // sign straight back in before a look at the address would have seen /login.
  const atLogin = page.waitForURL(/\/login/, { waitUntil: "commit" });
  await page.getByRole("button", { name: /user menu/i }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await atLogin;
}

test("add a passkey, sign out, sign in with it, remove it", async ({ login, page }) => {
  test.slow(); // four axe runs and five sign-ins or outs
  // A wrong password and the last step (the removed passkey) are refused with 400 by design.
  const problems = watchConsole(page, { allowStatus: [400] });
  const authenticator = await virtualAuthenticator(page);
  const user = await createUser(["user"], "Passkey Person");
  await login(user, page, "/dashboard/settings/security");
  await expect(page.getByRole("heading", { name: "Passkeys" })).toBeVisible();
  await expect(page.getByText("No passkeys yet.")).toBeVisible();
  expect(await axe(page)).toEqual([]);

  // Add, by keyboard: the name, the current password (asked again), then Tab to the button and Enter.
  const form = page.locator("form").filter({ has: page.getByRole("button", { name: "Add a passkey" }) });
  const name = form.getByLabel("What to call the new passkey");
  const password = form.getByLabel("Current password");
  await expect(password).toHaveAttribute("autocomplete", "current-password");
  await name.focus();
  await page.keyboard.type("E2E laptop");
  await page.keyboard.press("Tab");
  await expect(password).toBeFocused();
  // A wrong password: the field says so, no ceremony starts and nothing is stored.
  await page.keyboard.type("not the password");
  await page.keyboard.press("Enter");
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByText("The current password is not correct.")).toBeVisible();
  expect(await authenticator.credentials()).toHaveLength(0);
  await password.focus();
  await page.keyboard.type(E2E_PASSWORD);
  await page.keyboard.press("Tab");
  const add = page.getByRole("button", { name: "Add a passkey" });
  await expect(add).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Passkey “E2E laptop” added." })).toBeFocused();
  const list = page.getByTestId("passkeys");
  await expect(list).toContainText("E2E laptop");
  await expect(list).toContainText("never used");
  const stored = await authenticator.credentials();
  expect(stored).toHaveLength(1);
  expect(stored[0]!.isResidentCredential).toBe(true);
  expect(await axe(page)).toEqual([]);

  // Sign out: the login page asks for a passkey in the email field's autofill (conditional UI),
  // which the virtual authenticator answers as a person picking the suggestion would.
  await signOut(page);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("button", { name: /user menu/i })).toBeVisible();

  // A browser without conditional UI: the button, by keyboard, with no address and no password.
  await page.addInitScript(() => {
    PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  });
  await page.reload(); // a new document, which the script above runs in
  await signOut(page);
  await expect(page.getByLabel("Email")).toHaveAttribute("autocomplete", "username webauthn");
  expect(await axe(page)).toEqual([]);
  await page.getByRole("button", { name: "Sign in", exact: true }).focus();
  await page.keyboard.press("Tab");
  const withPasskey = page.getByRole("button", { name: "Sign in with a passkey" });
  await expect(withPasskey).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("button", { name: /user menu/i })).toBeVisible();

  // Settings now shows when it was last used; remove it through the confirmation, by keyboard.
  await page.goto("/dashboard/settings/security");
  await expect(list).toContainText("last used");
  const remove = page.getByRole("button", { name: "Remove E2E laptop" });
  await remove.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toBeVisible();
  expect(await axe(page)).toEqual([]);
  await dialog.getByRole("button", { name: "Remove passkey" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Passkey removed." })).toBeVisible();
  await expect(page.getByText("No passkeys yet.")).toBeVisible();

  // The authenticator still holds the key, but the account no longer knows it.
  await signOut(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("alert")).toHaveText("That passkey could not be used to sign in.");
  await expect(page).toHaveURL(/\/login/);
  expect(problems).toEqual([]);
});

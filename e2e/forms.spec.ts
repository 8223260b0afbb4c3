import { E2E_ADMIN } from "./env";
import { createUser, expect, signIn, test, watchConsole } from "./fixtures";

// The form pipeline in a real browser, on the public pages that use it and in the dashboard's
// dialogs: checked when a field is left, focus on the first problem after a refused submit,
// passwords never handed back, and no click lost to an error line appearing.

test("register: a too-short password is flagged on leaving the field, before any submit", async ({
  page,
}) => {
  const problems = watchConsole(page);
  await page.goto("/register");
  const password = page.getByLabel("Password");
  await expect(password).toHaveAttribute("minlength", "10");
  await password.fill("short");
  await expect(password).not.toHaveAttribute("aria-invalid", "true");
  await password.press("Tab");
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(password).toHaveAccessibleDescription(/Use at least 10 characters\./);
  await expect(page).toHaveURL(/\/register$/);
  // Re-checked while typing: a long enough password clears the error without leaving the field.
  await password.fill("a fine long passphrase");
  await expect(password).not.toHaveAttribute("aria-invalid", "true");
  expect(problems).toEqual([]);
});

test("a form checked in the browser breaks no Content-Security-Policy rule (zod runs without eval)", async ({
  page,
}) => {
  // zod compiles object parsers with `new Function` unless configured jitless; the policy allows
  // no eval, so its probe was a violation on every page with a form (Lighthouse best practices).
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
  const policyMessages: string[] = [];
  page.on("console", (msg) => {
    if (/Content Security Policy|unsafe-eval/i.test(msg.text())) policyMessages.push(msg.text());
  });
  await page.goto("/register");
  // Checked in the browser when a field is left and on submit: the form's schema parses.
  await page.getByLabel("Name").fill("Ada");
  await page.getByLabel("Email").fill("not-an-address");
  await page.getByLabel("Email").press("Tab");
  await expect(page.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByLabel("Email")).toBeFocused();
  const violations = await page.evaluate(
    () => (window as unknown as { cspViolations: string[] }).cspViolations,
  );
  expect(violations).toEqual([]);
  expect(policyMessages).toEqual([]);
});

test("register: submitting with errors moves focus to the first invalid field", async ({ page }) => {
  await page.goto("/register");
  await page.getByLabel("Email").fill("not-an-address");
  await page.getByRole("button", { name: "Create account" }).click();
  const name = page.getByLabel("Name");
  await expect(name).toBeFocused();
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(name).toHaveAccessibleDescription("Enter your name.");
  await expect(page.getByLabel("Email")).toHaveAccessibleDescription("Enter a valid email address.");
  await expect(page).toHaveURL(/\/register$/);
});

test.describe("without JavaScript the server's 400 says the same", () => {
  test.use({ javaScriptEnabled: false });

  test("register: field errors come back, the password does not", async ({ page }) => {
    await page.goto("/register");
    await page.getByLabel("Name").fill("Ada");
    await page.getByLabel("Email").fill("ada-nojs@example.test");
    const password = page.getByLabel("Password");
    // The browser's own check would stop a short password; a common one passes it.
    await password.fill("password123");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByText("This password is too common. Choose another.")).toBeVisible();
    await expect(page.getByLabel("Password")).toHaveValue("");
    await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Email")).toHaveValue("ada-nojs@example.test");
  });
});

test("login: a refused sign-in empties the password and focuses the message", async ({ page }) => {
  const user = await createUser(["user"]);
  await page.goto("/login");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  const alert = page.getByRole("alert");
  await expect(alert).toHaveText("Invalid email or password.");
  await expect(alert).toBeFocused();
  await expect(page.getByLabel("Password")).toHaveValue("");
  await expect(page.getByLabel("Email")).toHaveValue(user.email);
});

test("login still signs in through the form", async ({ page }) => {
  const problems = watchConsole(page);
  const user = await createUser(["user"]);
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/dashboard/);
  expect(problems).toEqual([]);
});

// app/components/forms/error-space.ts: an error line that appears when a field is left (on the
// press of the next click) must not move the control being clicked, or the click lands nowhere.
test("the invite and create dialogs: a click right after a field turns invalid is not lost", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await login(E2E_ADMIN, page, "/dashboard/users");
  for (const [button, title] of [
    ["Invite", "Invite by email"],
    ["Create user", "Create a user"],
  ] as const) {
    await page.getByRole("button", { name: button, exact: true }).click();
    const dialog = page.getByRole("dialog", { name: title });
    await expect(dialog).toBeVisible();
    // Untick the only role, then tick another with one click: leaving the first shows the error.
    const user = dialog.getByRole("checkbox", { name: "User", exact: true });
    const manager = dialog.getByRole("checkbox", { name: "Manager" });
    await user.click();
    await expect(user).not.toBeChecked();
    await manager.click();
    await expect(manager, title).toBeChecked();
    // A field above the roles turns invalid as the pointer goes down on a role.
    const email = dialog.getByRole("textbox", { name: /Email/ });
    await email.fill("not an address");
    await manager.click();
    await expect(dialog.getByText(/valid email/i)).toBeVisible();
    await expect(manager, title).not.toBeChecked();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  }
  expect(problems).toEqual([]);
});

import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { createUser, expect, signIn, tabTo, test } from "./fixtures";
import { FAKE_POSTMARK_URL, linkFromMail, receivedMail } from "./mail";

const PASSWORD = "a long e2e passphrase";
const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}@e2e.test`;

async function fillSignIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

test("register, follow the emailed link, sign in; the used link shows the 400 page", async ({ page }) => {
  const email = unique("reg");
  await page.goto("/login");
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByLabel("Name").fill("Reggie Tester");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  // The page follows the delivery of this request until the mail has left.
  await expect(page.getByRole("status")).toContainText("we have sent a verification link");

  // Not verified yet: sign-in is refused and a new link is offered.
  await fillSignIn(page, email, PASSWORD);
  await expect(page.getByRole("alert")).toContainText("verify your email");
  await page.getByRole("button", { name: "Send the verification link again" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();

  const link = await linkFromMail(email, "verification", "/api/auth/verify-email?token=");
  const [mail] = await receivedMail(email);
  expect(mail?.Subject).toBe("Verify your email address");
  await page.goto(link);
  await expect(page).toHaveURL(/\/login\?verified=1$/);
  await expect(page.getByText("Your email address is verified.")).toBeVisible();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Welcome, Reggie Tester" })).toBeVisible();

  const response = await page.goto(link);
  expect(response?.status()).toBe(400);
  await expect(page.getByRole("heading", { name: "This link cannot be used" })).toBeVisible();
  await expect(page.getByText("already been used")).toBeVisible();
});

test("a verification email the provider refuses says so on check-inbox, and try again sends it", async ({
  page,
}) => {
  const email = unique("refused");
  await fetch(`${FAKE_POSTMARK_URL}/__fail`, {
    method: "POST",
    body: JSON.stringify({ ErrorCode: 406, Message: "Inactive recipient.", To: email }),
  });
  await page.goto("/register");
  await page.getByLabel("Name").fill("Refused Once");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await expect(page.getByRole("status")).toContainText("could not be sent");
  expect(await receivedMail(email)).toHaveLength(0);
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByRole("status")).toContainText("we have sent a verification link");
  await linkFromMail(email, "verification", "/api/auth/verify-email?token=");
});

test("an expired verification link shows the 400 page with a way to a new link", async ({ page }) => {
  const email = unique("late");
  await page.goto("/register");
  await page.getByLabel("Name").fill("Late Comer");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  const link = await linkFromMail(email, "verification", "/api/auth/verify-email?token=");
  const db = createDb(`file:${E2E_DB}`);
  try {
    const user = await db
      .selectFrom("user")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    await db
      .updateTable("user_token")
      .set({ expires_at: "2000-01-01T00:00:00.000Z" })
      .where("user_id", "=", user.id)
      .execute();
  } finally {
    await db.destroy();
  }
  const response = await page.goto(link);
  expect(response?.status()).toBe(400);
  await expect(page.getByText("This link has expired.")).toBeVisible();
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send a new link" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();
  await expect.poll(async () => (await receivedMail(email)).length).toBe(2);
});

test("forgot password, reset through the emailed link, sign in with the new password", async ({ page }) => {
  const user = await createUser(["user"], "Forgetful User");
  await page.goto("/login");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  // Wait for the new page, or the fill lands on the login form that is being replaced.
  await expect(page.getByRole("heading", { name: "Forgot your password?" })).toBeVisible();
  await page.getByLabel("Email").fill(user.email);
  await page.getByRole("button", { name: "Send reset link" }).click();
  await expect(page.getByRole("heading", { name: "Check your inbox" })).toBeVisible();

  const link = await linkFromMail(user.email, "reset-password", "/reset-password?token=");
  await page.goto(link);
  await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Repeat the new password").fill(PASSWORD);
  await page.getByRole("button", { name: "Set new password" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByText("Your password was changed.")).toBeVisible();

  await fillSignIn(page, user.email, user.password);
  await expect(page.getByRole("alert")).toHaveText("Invalid email or password.");
  await signIn(page, user.email, PASSWORD);

  const response = await page.goto(link);
  expect(response?.status()).toBe(400);
  await expect(page.getByRole("link", { name: "Request a new password reset link" })).toBeVisible();
});

test("an admin invites from Settings; the invitee sets a password and lands signed in", async ({
  login,
  page,
  browser,
}) => {
  const email = unique("invitee");
  await login(E2E_ADMIN, page, "/dashboard/settings/invite");
  const invite = page.locator("section", { has: page.getByRole("heading", { name: "Invite someone" }) });
  await invite.getByLabel("Email address to invite").fill(email);
  await invite.getByLabel("Manager").check();
  await invite.getByRole("button", { name: "Send invitation" }).click();
  await expect(invite.getByRole("status")).toHaveText(`Invitation sent to ${email}.`);

  const link = await linkFromMail(email, "invite", "/accept-invite?token=");
  const guest = await browser.newContext();
  const invitee = await guest.newPage();
  await invitee.goto(link);
  await expect(invitee.getByText(email)).toBeVisible();
  await invitee.getByLabel("Name").fill("Invited Person");
  await invitee.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await invitee.getByLabel("Repeat the password").fill(PASSWORD);
  await invitee.getByRole("button", { name: "Create my account" }).click();
  await expect(invitee.getByRole("heading", { name: "Welcome, Invited Person" })).toBeVisible();
  await expect(invitee.getByTestId("my-roles")).toContainText("Manager");

  const response = await invitee.goto(link);
  expect(response?.status()).toBe(400);
  await guest.close();
});

test("Settings: a test email goes through the provider and shows in the mail log", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN, page, "/dashboard/settings/system");
  await expect(page.getByTestId("source-MAIL_API_KEY")).toContainText("from the environment");
  const to = unique("ops");
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Send a test email" }) });
  await section.getByLabel("Recipient").fill(to);
  await section.getByRole("button", { name: "Send test email" }).click();
  await expect(section.getByRole("status")).toContainText("Sent. Provider message id: fake-");
  await expect.poll(async () => (await receivedMail(to)).map((m) => m.Tag)).toEqual(["notification"]);
  await page.reload();
  await expect(page.getByTestId("mail-log")).toContainText(to);
});

test("Settings: the app name saved in the database wins over the default, and resets", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN, page, "/dashboard/settings/system");
  const section = page.locator("section", { has: page.getByRole("heading", { name: "Mail and branding" }) });
  await section.getByLabel("Application name").fill("Acme Control");
  await section.getByRole("button", { name: "Save settings" }).click();
  await expect(section.getByRole("status").first()).toHaveText("Saved: Application name.");
  // The shell and the title name the app (the sidebar only lists pages now).
  await expect(page).toHaveTitle("System · Settings · Acme Control");
  await expect(page.getByTestId("source-APP_NAME")).toContainText("from Settings (database)");
  await section.getByRole("button", { name: "Reset Application name to the environment value" }).click();
  await expect(page.getByTestId("source-APP_NAME")).toContainText("built-in default");
  await expect(page).not.toHaveTitle(/Acme Control/);
});

/** The fake Postmark refuses the next email to `to`, as a real provider refuses an inactive address. */
async function refuseMailTo(to: string) {
  await fetch(`${FAKE_POSTMARK_URL}/__fail`, {
    method: "POST",
    body: JSON.stringify({ ErrorCode: 406, Message: "Inactive recipient.", To: to }),
  });
}

test("an invitation the provider refuses says so; by keyboard the admin copies its link, which works once", async ({
  login,
  page,
  browser,
}) => {
  const email = unique("unmailed");
  await refuseMailTo(email);
  const admin = await createUser(["admin"], "Ada Admin");
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await login(admin, page, "/dashboard/users");
  await tabTo(page, page.getByRole("button", { name: "Invite", exact: true }));
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Invite by email" });
  await expect(dialog.getByLabel("Email to invite")).toBeFocused();
  await page.keyboard.type(email);
  await tabTo(page, dialog.getByRole("button", { name: "Send invitation" }));
  await page.keyboard.press("Enter");
  // Never "sent": the truth, and its link, in the dialog that made it (issue 36: one Tab to Copy).
  const notice = dialog.getByTestId("invite-unsent");
  await expect(notice.getByRole("status").first()).toHaveText(
    `The invitation for ${email} was not emailed: the mail provider refused it (Inactive recipient.). Copy its link and pass it on yourself.`,
  );
  await expect(notice.getByRole("status").first()).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(notice.getByRole("button", { name: `Copy the invite link for ${email}` })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(notice.getByRole("status").last()).toContainText(`Invite link for ${email} copied.`);
  // The form is empty again for the next person; the invitation waits under its tab.
  await expect(dialog.getByLabel("Email to invite")).toHaveValue("");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByRole("link", { name: /^Invitations \(\d+\)$/ }).click();
  await expect(page).toHaveURL(/tab=invitations/);
  const item = page.getByTestId("pending-invitations").getByRole("listitem").filter({ hasText: email });
  await expect(item.getByText("Not emailed: the provider refused it")).toBeVisible();
  await expect(item.getByRole("button", { name: `Copy the invite link for ${email}` })).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(/\/accept-invite\?token=/);
  // The link is on the clipboard only: not on the page, not in its address.
  expect(await page.content()).not.toContain(new URL(link).searchParams.get("token"));

  const guest = await browser.newContext();
  const invitee = await guest.newPage();
  await invitee.goto(link);
  await expect(invitee.getByText(email)).toBeVisible();
  await invitee.getByLabel("Name").fill("Copied Link");
  await invitee.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await invitee.getByLabel("Repeat the password").fill(PASSWORD);
  await invitee.getByRole("button", { name: "Create my account" }).click();
  await expect(invitee.getByRole("heading", { name: "Welcome, Copied Link" })).toBeVisible();
  await guest.close();

  // The copy is in the audit log under its own label.
  await page.goto("/dashboard/logs?action=user.invite.link_copied");
  await expect(page.getByRole("table")).toContainText("Copied an invitation's link (not emailed)");
});

test("a lesser admin reads why an invitation granting more than they hold offers no link; in German from Settings", async ({
  login,
  page,
}) => {
  const email = unique("boss");
  await refuseMailTo(email);
  // A super admin invites someone as super admin; the email is refused.
  await login(E2E_ADMIN, page, "/dashboard/settings/invite");
  const invite = page.locator("section", { has: page.getByRole("heading", { name: "Invite someone" }) });
  await invite.getByLabel("Email address to invite").fill(email);
  await invite.getByLabel("Super Admin").check();
  await invite.getByRole("button", { name: "Send invitation" }).click();
  const notice = page.getByTestId("invite-unsent");
  await expect(notice.getByRole("status").first()).toContainText(
    `The invitation for ${email} was not emailed`,
  );
  await expect(notice.getByRole("button", { name: `Copy the invite link for ${email}` })).toBeVisible();

  // An admin (German) sees it pending, not mailed, and no way to its link.
  const admin = await createUser(["admin"], "Anna Admin");
  const db = createDb(`file:${E2E_DB}`);
  try {
    await db.updateTable("user").set({ locale: "de" }).where("email", "=", admin.email).execute();
  } finally {
    await db.destroy();
  }
  await page.context().clearCookies();
  await login(admin, page, "/dashboard/users");
  await page.getByRole("link", { name: /^Einladungen \(\d+\)$/ }).click();
  await expect(page.getByRole("link", { name: /^Einladungen/ })).toHaveAttribute("aria-current", "page");
  const item = page.getByTestId("pending-invitations").getByRole("listitem").filter({ hasText: email });
  await expect(item.getByText("Nicht verschickt: vom Anbieter abgelehnt")).toBeVisible();
  await expect(
    item.getByText("Den Link kann nur kopieren, wer alle ihre Rollen vergeben darf."),
  ).toBeVisible();
  await expect(item.getByRole("button", { name: /Einladungslink/ })).toHaveCount(0);
});

test("the mail log explains an email that went nowhere (no provider), in production without its link", async ({
  login,
  page,
}) => {
  const to = unique("nowhere");
  const db = createDb(`file:${E2E_DB}`);
  try {
    // What a send without any key leaves in production (app/mail/send-email.server.ts): no link.
    await db
      .insertInto("mail_log")
      .values({
        id: randomUUID(),
        to_address: to,
        type: "invite",
        subject: "You are invited",
        status: "outbox",
        provider_message_id: "outbox-e2e",
        error: null,
        outbox_link: null,
        created_at: new Date().toISOString(),
      })
      .execute();
  } finally {
    await db.destroy();
  }
  await login(E2E_ADMIN, page, "/dashboard/settings/system");
  const row = page.getByTestId("mail-log").getByRole("row").filter({ hasText: to });
  const badge = row.getByText("Not sent: no mail provider");
  await expect(badge).toBeVisible();
  await expect(badge).toHaveAccessibleDescription(
    /no mail API key is set \(above\), so these emails reached nobody/,
  );
  await expect(page.getByTestId("outbox-note")).toContainText("“Copy invite link”");
});

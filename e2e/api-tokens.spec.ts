import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB, E2E_PASSWORD } from "./env";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

/** A token for `userId` written straight into the e2e database; returns its secret. */
async function tokenFor(userId: string, name: string) {
  const secret = `dash_${randomBytes(32).toString("base64url")}`;
  const db = createDb(`file:${E2E_DB}`);
  try {
    const at = Date.now();
    await db
      .insertInto("api_token")
      .values({
        id: randomUUID(),
        user_id: userId,
        name,
        token_hash: createHash("sha256").update(secret).digest("hex"),
        permissions: JSON.stringify(["dashboard.access"]),
        expires_at: new Date(at + 30 * 86_400_000).toISOString(),
        created_at: new Date(at).toISOString(),
        last_used_at: null,
        revoked_at: null,
        revoked_by: null,
      })
      .execute();
  } finally {
    await db.destroy();
  }
  return secret;
}

// A personal API token from Settings by keyboard: created, shown once and copied, used on
// /api/tasks with `Authorization: Bearer` (no cookie), revoked, and refused afterwards.

test("create a token in Settings, call /api/tasks with it, revoke it", async ({
  login,
  page,
  context,
  request,
}) => {
  // A wrong password is refused with 400 by design.
  const problems = watchConsole(page, { allowStatus: [400] });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const user = await createUser(["user"], "Token Maker");
  await login(user, page, "/dashboard/settings/api-tokens");
  const link = page
    .getByRole("navigation", { name: "Settings pages" })
    .getByRole("link", { name: "API tokens" });
  await expect(link).toHaveAttribute("aria-current", "page");
  await expect(page.getByText("You have no API tokens.")).toBeVisible();

  // By keyboard from the page's link in the menu: the name, the expiry, the permissions, then Enter.
  await link.focus();
  const name = page.getByLabel("What the token is for");
  for (let i = 0; i < 5 && !(await name.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press("Tab");
  await expect(name).toBeFocused();
  await page.keyboard.type("E2E script");
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Expires after")).toBeFocused();
  await expect(page.getByLabel("Expires after")).toHaveValue("90");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("checkbox", { name: "Access Dashboard" })).toBeFocused();
  await expect(page.getByRole("checkbox", { name: "Access Dashboard" })).toBeChecked();
  // Only the user's own permissions are offered.
  await expect(page.getByRole("checkbox", { name: "Edit Users" })).toHaveCount(0);
  // The current password is asked again: a wrong one is the field's error and creates nothing.
  const form = page.locator("form").filter({ has: page.getByRole("button", { name: "Create token" }) });
  const password = form.getByLabel("Current password");
  await expect(password).toHaveAttribute("autocomplete", "current-password");
  await password.focus();
  await page.keyboard.type("not the password");
  await page.keyboard.press("Enter");
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByText("The current password is not correct.")).toBeVisible();
  await expect(page.getByText("You have no API tokens.")).toBeVisible();
  await password.fill("");
  await password.focus();
  await page.keyboard.type(E2E_PASSWORD);
  await name.focus();
  await page.keyboard.press("Enter");

  // Shown once, the way every secret is (issue 36): a dialog with Copy and "I have saved it".
  const reveal = page.getByRole("dialog", { name: "Your new API token" });
  await expect(reveal).toContainText("Copy it now: it is not shown again.");
  const secret = await reveal.getByTestId("new-api-token").inputValue();
  expect(secret).toMatch(/^dash_[A-Za-z0-9_-]{43}$/);
  await tabTo(page, reveal.getByRole("button", { name: "Copy", exact: true }));
  await page.keyboard.press("Enter");
  await expect(reveal.getByText("Copied to the clipboard.")).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(secret);

  const axe = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(axe.violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`)).toEqual([]);
  await tabTo(page, reveal.getByRole("button", { name: "I have saved it" }));
  await page.keyboard.press("Enter");
  await expect(reveal).toBeHidden();
  // Closed, the focus is back where it was and the page says what was made.
  await expect(page.getByRole("status").filter({ hasText: 'Token "E2E script" created.' })).toBeVisible();

  // The request context carries no cookie of the page: the token alone signs the calls in.
  const auth = { Authorization: `Bearer ${copied}` };
  const list = await request.get("/api/tasks", { headers: auth });
  expect(list.status()).toBe(200);
  const started = await request.post("/api/tasks", {
    headers: auth,
    data: { type: "report.generate", payload: { durationMs: 10 } },
  });
  expect(started.status()).toBe(202);

  // Shown once: after a reload the list has the token, the page no longer the secret.
  await page.reload();
  await expect(link).toHaveAttribute("aria-current", "page");
  const row = page.getByTestId("api-tokens").getByRole("listitem").filter({ hasText: "E2E script" });
  await expect(row).toContainText("Access Dashboard");
  await expect(row).not.toContainText("last used never");
  expect(await page.content()).not.toContain(secret);

  const revoke = page.getByRole("button", { name: "Revoke the token E2E script" });
  await link.focus();
  for (let i = 0; i < 20 && !(await revoke.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press("Tab");
  await expect(revoke).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "The token was revoked." })).toBeFocused();
  await expect(revoke).toHaveCount(0);

  const refused = await request.get("/api/tasks", { headers: auth });
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toEqual({ error: "unauthorized" });

  const after = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(after.violations.map((v) => v.id)).toEqual([]);
  expect(problems).toEqual([]);
});

test("an admin revokes another account's token on the user page, never seeing it", async ({
  login,
  page,
  request,
}) => {
  const problems = watchConsole(page);
  const owner = await createUser(["user"], "Token Owner");
  const secret = await tokenFor(owner.id, "Nightly export");
  const auth = { Authorization: `Bearer ${secret}` };
  expect((await request.get("/api/tasks", { headers: auth })).status()).toBe(200);

  await login(E2E_ADMIN, page, `/dashboard/users/${owner.id}`);
  const card = page.getByTestId("user-api-tokens");
  await expect(card).toContainText("Nightly export");
  expect(await page.content()).not.toContain(secret);
  const axe = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);

  const revoke = page.getByRole("button", { name: "Revoke the API token Nightly export" });
  await revoke.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("API token revoked.")).toBeVisible();
  await expect(revoke).toHaveCount(0);
  expect((await request.get("/api/tasks", { headers: auth })).status()).toBe(401);
  expect(problems).toEqual([]);
});

import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_DB, E2E_PASSWORD } from "./env";
import { axeBuilder, createUser, expect, signIn, tabTo, test, watchConsole } from "./fixtures";

// Two-factor authentication end to end, by keyboard: set it up in Settings by reading the key
// off the page (as a person types it into an app), sign out, sign in with password + code, then
// with a recovery code. axe checks the Settings section and the code page.

async function axe(page: Page) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`);
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/**
 * The code an authenticator app shows for the 30-second time step `step` (RFC 6238 with the app's
 * settings: SHA-1, 6 digits; app/auth/two-factor.server.ts), so a test picks the step it needs
 * instead of waiting for the clock.
 */
function codeForStep(secret: string, step: number): string {
  const bits = [...secret].map((c) => BASE32.indexOf(c).toString(2).padStart(5, "0")).join("");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

const currentStep = () => Math.floor(Date.now() / 30_000);

async function signOut(page: Page, name: string) {
  await page.getByRole("button", { name }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
}

async function passwordStep(page: Page, email: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByLabel("Password").press("Enter");
  await expect(page).toHaveURL(/\/login\/two-factor$/);
  await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
  // No session yet: the dashboard still asks to sign in.
}

test("set up two-factor by keyboard, then sign in with a code and with a recovery code", async ({ page }) => {
  test.slow(); // five axe runs and four sign-ins
  const problems = watchConsole(page, { allowStatus: [400] });
  const user = await createUser(["user"], "Two Factor");
  await signIn(page, user.email, E2E_PASSWORD);

  await page.goto("/dashboard/settings/security#two-factor");
  const link = page
    .getByRole("navigation", { name: "Settings pages" })
    .getByRole("link", { name: "Password and authentication" });
  await expect(link).toHaveAttribute("aria-current", "page");
  await link.focus();
  // Setting up asks for the password again (a stolen session must not attach its own app).
  const password = page.locator("#two-factor").getByLabel("Current password");
  await tabTo(page, password);
  await page.keyboard.type(E2E_PASSWORD);
  const setUp = page.getByRole("button", { name: "Set up two-factor authentication" });
  await tabTo(page, setUp);
  await page.keyboard.press("Enter");

  const secretText = page.getByTestId("two-factor-secret");
  await expect(secretText).toBeVisible();
  await expect(page.getByRole("img", { name: /QR code/ })).toBeVisible();
  const secret = (await secretText.textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]+$/);
  expect(await axe(page)).toEqual([]);

  // A wrong code first: refused, shown at the field.
  const codeField = page.getByLabel("Code from your app");
  await tabTo(page, codeField);
  await page.keyboard.type("000000");
  await page.keyboard.press("Enter");
  await expect(page.getByText(/That code is not right/)).toBeVisible();

  await codeField.fill("");
  await codeField.focus();
  // The step this code belongs to is the one the app stores as spent.
  const spentStep = currentStep();
  await page.keyboard.type(codeForStep(secret, spentStep));
  await page.keyboard.press("Enter");
  const on = page.getByRole("status").filter({ hasText: "Two-factor authentication is on." });
  await expect(on).toBeFocused();
  const codes = await page.getByTestId("recovery-codes").getByRole("listitem").allTextContents();
  expect(codes).toHaveLength(10);
  expect(await axe(page)).toEqual([]);

  await signOut(page, "Two Factor");

  // Password, then the code from the app. A code counts once, so the setup's is spent: the next
  // step's code, which the app accepts as well (one step either side, for clocks that drift).
  await passwordStep(page, user.email);
  expect(await axe(page)).toEqual([]);
  await expect(page.getByLabel("Code")).toBeFocused();
  await page.keyboard.type(codeForStep(secret, spentStep + 1));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);

  await signOut(page, "Two Factor");

  // Password, then a recovery code; that code then no longer works.
  await passwordStep(page, user.email);
  await page.getByLabel("Code").fill(codes[0]!);
  await page.getByRole("button", { name: "Verify" }).press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/settings/security#two-factor");
  await expect(page.getByText("9 unused recovery codes left.")).toBeVisible();

  await signOut(page, "Two Factor");
  await passwordStep(page, user.email);
  await page.getByLabel("Code").fill(codes[0]!);
  await page.getByLabel("Code").press("Enter");
  await expect(page.getByRole("alert")).toContainText("That code is not right");
  await expect(page).toHaveURL(/\/login\/two-factor$/);
  expect(await axe(page)).toEqual([]);
  expect(problems).toEqual([]);
});

/** Two-factor on for `user` through Settings (password, key, code); the page shows the codes. */
async function turnOn(page: Page) {
  await page.goto("/dashboard/settings/security#two-factor");
  await page.locator("#two-factor").getByLabel("Current password").fill(E2E_PASSWORD);
  await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
  const secret = (await page.getByTestId("two-factor-secret").textContent())!.trim();
  await page.getByLabel("Code from your app").fill(codeForStep(secret, currentStep()));
  await page.getByLabel("Code from your app").press("Enter");
  await expect(page.getByTestId("recovery-codes").getByRole("listitem")).toHaveCount(10);
  return page.getByTestId("recovery-codes").getByRole("listitem").allTextContents();
}

test("recovery codes: copy, download as a named .txt and print them alone, by keyboard; turning off stands apart", async ({
  login,
  page,
  context,
}) => {
  const problems = watchConsole(page);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const user = await createUser(["user"], "Recovery Keeper");
  await login(user, page, "/dashboard/settings/security#two-factor");
  const codes = await turnOn(page);
  const box = page.getByRole("region", { name: "Your recovery codes" });
  const said = box.getByRole("status");

  const copy = box.getByRole("button", { name: "Copy codes" });
  await copy.focus();
  await page.keyboard.press("Enter");
  await expect(said).toHaveText("Codes copied to the clipboard.");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  for (const code of codes) expect(copied).toContain(code);
  expect(copied).toContain(user.email);

  await page.keyboard.press("Tab");
  await expect(box.getByRole("button", { name: "Download .txt" })).toBeFocused();
  const downloading = page.waitForEvent("download");
  await page.keyboard.press("Enter");
  const file = await downloading;
  expect(file.suggestedFilename()).toBe("admin-dashboard-recovery-codes.txt");
  const text = readFileSync((await file.path())!, "utf8");
  expect(text.split("\n")[0]).toBe("Admin Dashboard: two-factor recovery codes");
  for (const code of codes) expect(text).toContain(`\n${code}\n`);
  await expect(said).toHaveText("Codes downloaded as a text file.");

  // Print: the browser's dialog is replaced by a note of what the page was when it opened.
  await page.evaluate(() => {
    window.print = () => {
      (window as unknown as { printedAlone: boolean }).printedAlone =
        document.documentElement.hasAttribute("data-printing");
    };
  });
  await page.keyboard.press("Tab");
  await expect(box.getByRole("button", { name: "Print codes" })).toBeFocused();
  await page.keyboard.press("Enter");
  expect(await page.evaluate(() => (window as unknown as { printedAlone: boolean }).printedAlone)).toBe(true);
  await page.emulateMedia({ media: "print" });
  await expect(box.getByRole("listitem")).toHaveCount(10);
  for (const item of await box.getByRole("listitem").all()) await expect(item).toBeVisible();
  await expect(box.getByText(`Admin Dashboard: two-factor recovery codes · ${user.email}`)).toBeVisible();
  // Located by CSS, not by role: what print leaves out leaves the accessibility tree too.
  const leftOut = [
    box.locator("button"),
    page.locator("h1"),
    page.locator('nav[aria-label="Settings pages"]'),
    page.locator("header"),
    page.locator("aside"),
    page.locator("section").filter({ hasText: "Turn off two-factor authentication" }).last(),
  ];
  for (const part of leftOut) {
    expect(await part.count()).toBeGreaterThan(0);
    for (const one of await part.all()) await expect(one).toBeHidden();
  }
  // Once the dialog closes, the page prints whole again.
  await page.evaluate(() => window.dispatchEvent(new Event("afterprint")));
  await expect(page.locator("html")).not.toHaveAttribute("data-printing");
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await page.emulateMedia({ media: "screen" });

  // Turning off is its own section, in the danger style, away from the codes and their buttons.
  const turnOff = page
    .locator("section")
    .filter({ has: page.getByRole("heading", { name: "Turn off two-factor authentication", level: 2 }) });
  await expect(turnOff).toHaveCount(1);
  await expect(turnOff.getByRole("button", { name: "Turn off two-factor authentication" })).toBeVisible();
  await expect(turnOff.getByTestId("recovery-codes")).toHaveCount(0);
  await expect(turnOff.getByRole("button", { name: "Make new recovery codes" })).toHaveCount(0);
  expect(await turnOff.evaluate((el) => el.className)).toContain("border-destructive");
  expect(await axe(page)).toEqual([]);
  expect(problems).toEqual([]);
});

test("a role that requires two-factor: enrolment first, then on to the page asked for", async ({ page }) => {
  const problems = watchConsole(page);
  const name = `e2e-2fa-${randomUUID().slice(0, 8)}`;
  const db = createDb(`file:${E2E_DB}`);
  try {
    const now = new Date().toISOString();
    const id = randomUUID();
    await db
      .insertInto("role")
      .values({
        id,
        name,
        label: "Must enrol",
        all_permissions: 0,
        is_system: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db.insertInto("two_factor_required_role").values({ role_id: id, created_at: now }).execute();
  } finally {
    await db.destroy();
  }
  const user = await createUser(["user", name], "Must Enrol");
  await signIn(page, user.email, E2E_PASSWORD);
  await page.goto("/dashboard/tasks?status=done");
  await expect(page).toHaveURL(
    /\/dashboard\/settings\/security\?twoFactor=1&redirectTo=%2Fdashboard%2Ftasks%3Fstatus%3Ddone/,
  );
  await expect(
    page
      .getByRole("navigation", { name: "Settings pages" })
      .getByRole("link", { name: "Password and authentication" }),
  ).toHaveAttribute("aria-current", "page");
  const panel = page.locator("#two-factor");
  await panel.getByLabel("Current password").fill(E2E_PASSWORD);
  await panel.getByRole("button", { name: "Set up two-factor authentication" }).click();
  const secret = (await page.getByTestId("two-factor-secret").textContent())!.trim();
  await page.getByLabel("Code from your app").fill(codeForStep(secret, currentStep()));
  await page.getByLabel("Code from your app").press("Enter");
  await expect(page.getByTestId("recovery-codes")).toBeVisible();
  const onward = page.getByRole("link", { name: "I have kept them: continue" });
  await tabTo(page, onward);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/tasks\?status=done$/);
  expect(problems).toEqual([]);
});

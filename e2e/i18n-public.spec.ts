import type { Page } from "@playwright/test";
import { axeBuilder, createUser, expect, test, watchConsole } from "./fixtures";

// The public pages in German for a German browser (Accept-Language, no setting): headings, labels,
// field and form errors (raised in English, shown translated), <html lang>, walked by keyboard;
// and an English browser still gets English.

async function axe(page: Page) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations.map((v) => `${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`);
}

test.describe("a German browser", () => {
  test.use({ locale: "de-DE" });

  test("login: German page, a German field error, a German refusal, axe clean", async ({ page }) => {
    const problems = watchConsole(page, { allowStatus: [400] });
    const user = await createUser(["user"]);
    await page.goto("/login");
    await expect(page.locator("html")).toHaveAttribute("lang", "de");
    await expect(page.getByRole("heading", { level: 1, name: "Anmelden" })).toBeVisible();
    await expect(page).toHaveTitle(/Anmelden/);
    await expect(page.getByRole("link", { name: "Passwort vergessen?" })).toBeVisible();
    expect(await axe(page)).toEqual([]);

    // By keyboard: a bad address is flagged in German when the field is left.
    const email = page.getByLabel("E-Mail");
    await email.focus();
    await page.keyboard.type("keine-adresse");
    await page.keyboard.press("Tab");
    await expect(page.getByLabel("Passwort", { exact: true })).toBeFocused();
    await expect(email).toHaveAttribute("aria-invalid", "true");
    await expect(email).toHaveAccessibleDescription("Geben Sie eine gültige E-Mail-Adresse ein.");

    // The server's one answer for a bad pair, in German, focused.
    await email.fill(user.email);
    await page.getByLabel("Passwort", { exact: true }).fill("not-the-password");
    await page.keyboard.press("Enter");
    const alert = page.getByRole("alert").filter({ hasText: "E-Mail-Adresse oder Passwort ist falsch." });
    await expect(alert).toBeVisible();
    await expect(alert).toBeFocused();
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  test("register: German labels, hint and a German validation error, axe clean", async ({ page }) => {
    const problems = watchConsole(page);
    await page.goto("/register");
    await expect(page.locator("html")).toHaveAttribute("lang", "de");
    await expect(page.getByRole("heading", { level: 1, name: "Konto erstellen" })).toBeVisible();
    await page.getByLabel("Name").focus();
    await page.keyboard.press("Tab");
    await expect(page.getByLabel("E-Mail")).toBeFocused();
    await page.keyboard.press("Tab");
    const password = page.getByLabel("Passwort");
    await expect(password).toBeFocused();
    await page.keyboard.type("kurz");
    await page.keyboard.press("Tab");
    await expect(password).toHaveAccessibleDescription(
      /^Verwenden Sie mindestens 10 Zeichen\. Mindestens 10 Zeichen; gängige Passwörter werden abgelehnt\.$/,
    );
    await expect(page.getByRole("button", { name: "Konto erstellen" })).toBeFocused();
    await page.keyboard.press("Enter");
    // The empty name is the first problem: focus goes there, and it is said in German.
    await expect(page.getByLabel("Name")).toBeFocused();
    await expect(page.getByLabel("Name")).toHaveAccessibleDescription("Geben Sie Ihren Namen ein.");
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  test("forgot password: German page, and the check-inbox page after it, axe clean", async ({ page }) => {
    const problems = watchConsole(page);
    await page.goto("/forgot-password");
    await expect(page.locator("html")).toHaveAttribute("lang", "de");
    await expect(page.getByRole("heading", { level: 1, name: "Passwort vergessen?" })).toBeVisible();
    expect(await axe(page)).toEqual([]);
    await page.getByLabel("E-Mail").focus();
    await page.keyboard.type("niemand@example.test");
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/check-inbox/);
    await expect(page.getByRole("heading", { level: 1, name: "Prüfen Sie Ihren Posteingang" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Zurück zur Anmeldung" })).toBeVisible();
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  test("a link that cannot be used says so in German", async ({ page }) => {
    const problems = watchConsole(page, { allowStatus: [400] });
    await page.goto("/reset-password?token=nonsense");
    await expect(
      page.getByRole("heading", { level: 1, name: "Dieser Link kann nicht verwendet werden" }),
    ).toBeVisible();
    await expect(
      page.getByRole("link", { name: "Neuen Link zum Zurücksetzen des Passworts anfordern" }),
    ).toBeVisible();
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});

test.describe("an English browser", () => {
  test.use({ locale: "en-US" });

  test("still sees English", async ({ page }) => {
    await page.goto("/login");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await page.getByLabel("Email").fill("not-an-address");
    await page.getByLabel("Email").press("Tab");
    await expect(page.getByLabel("Email")).toHaveAccessibleDescription("Enter a valid email address.");
    await page.goto("/register");
    await expect(page.getByRole("heading", { level: 1, name: "Create an account" })).toBeVisible();
  });
});

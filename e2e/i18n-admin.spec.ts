import type { Page } from "@playwright/test";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// The language setting by keyboard: an English browser picks Deutsch in Settings → Profile, and
// Settings, Access control and the audit log then speak German (labels, action names, dates) with
// <html lang="de">; Automatic brings the browser's English back.

async function expectAccessible(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(
    result.violations.map((v) => `${label}: ${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`),
  ).toEqual([]);
}

test("switch to Deutsch in Settings by keyboard: settings, access control and the audit log in German; back to Automatic", async ({
  login,
  page,
}) => {
  // Four pages in two languages, each scanned by axe: over a minute on a loaded 2-core machine.
  test.slow();
  const problems = watchConsole(page);
  const user = await createUser(["admin"], "Sprache Tastatur");
  await login(user, page, "/dashboard/settings");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();

  // Automatic, then each language named in itself.
  const language = page.getByLabel("Language");
  await expect(language.locator("option")).toHaveText(["Automatic (browser language)", "English", "Deutsch"]);
  await page.getByLabel("Name", { exact: true }).focus();
  await tabTo(page, language);
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(language).toHaveValue("de");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Save language" })).toBeFocused();
  await page.keyboard.press("Enter");

  // The same page, now German: the root loader's language changed and the client followed.
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(page.getByRole("heading", { level: 1, name: "Einstellungen" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Ihre Sprache wurde gespeichert." })).toBeFocused();
  const menu = page.getByRole("navigation", { name: "Einstellungsseiten" });
  await expect(menu.getByRole("link", { name: "Profil" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByLabel("Sprache", { exact: true })).toHaveValue("de");
  await expect(page.getByRole("button", { name: "Namen speichern" })).toBeVisible();
  await menu.getByRole("link", { name: "Profil" }).focus();
  await page.keyboard.press("Tab");
  const security = menu.getByRole("link", { name: "Passwort und Anmeldung" });
  await expect(security).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/settings\/security$/);
  await expect(security).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { name: "Aktive Sitzungen" })).toBeVisible();
  await expect(page.getByText("Diese Sitzung")).toBeVisible();
  await expectAccessible(page, "settings (de)");

  // A full page load is German too (the setting, not the browser, decides).
  await page.goto("/dashboard/access");
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(page.getByRole("heading", { level: 1, name: "Zugriffskontrolle" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Rollen und Berechtigungen" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Berechtigung" })).toBeVisible();
  await expect(page.getByRole("rowheader", { name: /Benutzer ansehen/ })).toBeVisible();
  await expect(page.getByRole("tab", { name: "Rollen" })).toBeVisible();
  await expectAccessible(page, "access (de)");

  await page.goto("/dashboard/logs");
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(page.getByRole("heading", { level: 1, name: "Audit-Log" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Aktion" })).toBeVisible();
  const mine = page.getByTestId("audit-row").filter({ hasText: "Eigene Sprache geändert" }).first();
  await expect(mine).toBeVisible();
  // Dates as Germans write them: 23.11.2026, 08:15 UTC.
  await expect(mine.locator("time")).toHaveText(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC$/);
  await expect(page.getByLabel("Aktion", { exact: true }).locator("option").first()).toHaveText(
    "Alle Aktionen",
  );
  await expectAccessible(page, "audit log (de)");

  // Back to Automatic: the browser's English.
  await page.goto("/dashboard/settings");
  const sprache = page.getByLabel("Sprache", { exact: true });
  await page.getByLabel("Name", { exact: true }).focus();
  await tabTo(page, sprache);
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await expect(sprache).toHaveValue("");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Sprache speichern" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Your language was saved." })).toBeVisible();
  await expect(page.getByLabel("Language")).toHaveValue("");
  expect(problems).toEqual([]);
});

import type { Page } from "@playwright/test";
import { E2E_ADMIN } from "./env";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// The signed-in frame in German, for a browser that asks for it (Accept-Language de-DE): the
// dashboard, the sidebar (seeded rows by their url), the users list, a user page and a team page,
// dates through Intl de-DE, <html lang="de">, a refusal said in German, and axe on each page.

test.use({ locale: "de-DE" });

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
/** "23.11.2026, 07:39 UTC": Intl's de-DE date, kept in UTC. */
const GERMAN_DATE = /\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC/;

async function axe(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(TAGS).analyze();
  expect(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    label,
  ).toEqual([]);
}

test("the dashboard, users and teams in German, walked by keyboard", async ({ page, login }) => {
  const problems = watchConsole(page);
  await login(E2E_ADMIN);
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await expect(page.getByRole("heading", { level: 1, name: /^Willkommen, / })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Hintergrundaufgaben" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Aufgaben, \d+ laufend$/ })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Benachrichtigungen, \d+ ungelesen$/ })).toBeVisible();
  await expect(page.getByRole("link", { name: "Zum Inhalt springen" })).toBeAttached();
  const nav = page.getByRole("navigation", { name: "Hauptnavigation" });
  for (const label of [
    "Übersicht",
    "Benutzer",
    "Teams",
    "Zugriffskontrolle",
    "Audit-Protokoll",
    "Einstellungen",
  ])
    await expect(nav.getByRole("link", { name: label, exact: true })).toBeVisible();
  await axe(page, "dashboard");

  // The sidebar, by keyboard, to the users list.
  const usersLink = nav.getByRole("link", { name: "Benutzer", exact: true });
  await tabTo(page, usersLink);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/users$/);
  await expect(page.getByRole("heading", { level: 1, name: "Benutzer" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Benutzer filtern" })).toBeVisible();
  const table = page.getByRole("table", { name: "Benutzer" });
  await expect(table.getByRole("columnheader", { name: /Letzte Anmeldung/ })).toBeVisible();
  await expect(table.getByRole("cell").filter({ hasText: GERMAN_DATE }).first()).toBeVisible();
  await expect(table.getByText("Aktiv", { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId("page-range")).toHaveText(/^(\d+)–(\d+) von [\d.]+ Benutzer(n)?$/);
  await axe(page, "users list");

  // A user page: the super admin's own, found by searching (other specs add many accounts).
  await page.goto(`/dashboard/users?q=${encodeURIComponent(E2E_ADMIN.email)}`);
  const own = table.getByRole("row").filter({ hasText: E2E_ADMIN.email }).getByRole("link");
  await tabTo(page, own);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/users\/[0-9a-f-]{36}$/);
  // Signed in by the fixture's session: a last sign-in only if another spec used the form, German either way.
  await expect(page.getByText(/^(letzte Anmeldung |noch nie angemeldet$)/)).toHaveText(
    /^(letzte Anmeldung \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC|noch nie angemeldet)$/,
  );
  await expect(page.getByTestId("user-sessions")).toContainText(GERMAN_DATE);
  await expect(page.getByTestId("user-sessions")).toContainText("zuletzt aktiv");
  await expect(page.getByRole("heading", { name: "Konto" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Aktive Sitzungen" })).toBeVisible();
  await expect(page.getByText("Sie können Ihr eigenes Konto nicht deaktivieren oder löschen.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Änderungen speichern" })).toBeVisible();
  await axe(page, "user page");

  // Teams: create one by keyboard; its page follows, with the toast said in German.
  await tabTo(page, nav.getByRole("link", { name: "Teams", exact: true }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "Teams" })).toBeVisible();
  const name = `Vertrieb ${Date.now()}`;
  const field = page.getByLabel("Teamname");
  await tabTo(page, field);
  await page.keyboard.type(name);
  await tabTo(page, page.getByRole("button", { name: "Team anlegen" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/teams\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("status").filter({ hasText: `Team „${name}“ angelegt.` })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Mitglieder (0)" })).toBeVisible();
  await expect(page.getByText("Noch keine Mitglieder.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Mitglieder hinzufügen" })).toBeVisible();
  await expect(page.getByRole("button", { name: `Team ${name} löschen` })).toBeVisible();
  await axe(page, "team page");
  expect(problems).toEqual([]);
});

test("a refusal is said in German", async ({ page, login }) => {
  const plain = await createUser(["user"], "Erika Muster");
  await login(plain);
  await expect(page.locator("html")).toHaveAttribute("lang", "de");
  await page.goto("/dashboard/logs");
  const refusal = page.getByTestId("no-access");
  await expect(refusal.getByRole("heading", { name: "Kein Zugriff" })).toBeVisible();
  await expect(refusal).toContainText("Ihrem Konto fehlt die Berechtigung");
  await expect(refusal).toContainText("(log.read)");
  await expect(refusal.getByTestId("roles-giving")).toContainText("Rollen, die sie geben:");
  await axe(page, "no access");
});

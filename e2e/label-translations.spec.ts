import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_DB } from "./env";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Labels an admin gives per language, by keyboard: a custom role created with a German label, a
// menu item renamed with one; in German the sidebar and the matrix say them, in English the
// labels as written (docs/decisions/040-label-translations.md).

async function axe(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(
    result.violations.map((v) => `${label}: ${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`),
  ).toEqual([]);
}

/** Types into a field reached by Tab, replacing what it held. */
async function typeInto(page: Page, field: ReturnType<Page["getByLabel"]>, text: string) {
  await tabTo(page, field);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(text);
}

async function teamsItem() {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await db
      .selectFrom("menu_item")
      .selectAll()
      .where("url", "=", "/dashboard/teams")
      .executeTakeFirstOrThrow();
  } finally {
    await db.destroy();
  }
}

/** The Teams item as the seed wrote it, through the page's action (the server caches the menu). */
async function restoreTeams(page: Page) {
  const item = await teamsItem();
  const response = await page.request.post("/dashboard/access", {
    form: {
      intent: "update-menu",
      id: item.id,
      title: "Teams",
      url: item.url,
      icon: item.icon,
      requiredPermission: item.required_permission,
      "translations.de": "",
    },
    headers: { Origin: new URL(page.url()).origin },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(302);
}

test("a German label for a new role and a renamed menu item, by keyboard: German readers see them, English ones the labels as written", async ({
  login,
  page,
  browser,
}) => {
  // Two people, three page loads with axe: slow on a shared 2-core machine.
  test.slow();
  const problems = watchConsole(page);
  const suffix = Date.now().toString(36);
  const label = `Auditor ${suffix}`;
  const german = `Prüfer ${suffix}`;
  const admin = await createUser(["admin"], "Label Admin");
  // Roles are created on the Roles tab, the matrix is the Permissions tab, the menu its own tab.
  await login(admin, page, "/dashboard/access?tab=roles");

  try {
    // A new role, its German label beside its label.
    await typeInto(page, page.getByLabel("Name", { exact: true }), `auditor_${suffix}`);
    await page.keyboard.press("Tab");
    await expect(page.getByLabel("Label", { exact: true })).toBeFocused();
    await page.keyboard.type(label);
    await page.keyboard.press("Tab");
    const germanField = page
      .locator("form#create-role")
      .getByRole("textbox", { name: "German label", exact: true });
    await expect(germanField).toBeFocused();
    await expect(germanField).toHaveAccessibleDescription(/Optional\. Shown to people using this language/);
    await page.keyboard.type(german);
    await tabTo(page, page.getByRole("button", { name: "Create role" }));
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status").filter({ hasText: `Role "${label}" created.` })).toBeVisible();
    await page.goto("/dashboard/access");
    await expect(page.getByRole("columnheader", { name: new RegExp(label) })).toBeVisible();
    // The matrix has the German label under the label, for each role the admin may change.
    await expect(page.getByRole("textbox", { name: `German label of auditor_${suffix}` })).toHaveValue(
      german,
    );

    // A menu item renamed, with its German title.
    await page.goto("/dashboard/access?tab=menu");
    const teamsRow = page.locator(`li[data-item="${(await teamsItem()).id}"]`);
    await typeInto(page, teamsRow.getByLabel("Title"), "Squads");
    await typeInto(
      page,
      teamsRow.getByRole("textbox", { name: "German label", exact: true }),
      "Mannschaften",
    );
    await tabTo(page, page.getByRole("button", { name: "Save menu" }));
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status").filter({ hasText: "Menu saved." })).toBeVisible();
    await expect(page.getByTestId("sidebar").getByRole("link", { name: "Squads" })).toBeVisible();
    await expect(teamsRow.getByRole("textbox", { name: "German label", exact: true })).toHaveValue(
      "Mannschaften",
    );
    await axe(page, "access page with the label fields (en)");

    // The admin switches to German.
    const saved = await page.request.post("/dashboard/settings/profile", {
      form: { intent: "language", locale: "de" },
      headers: { Origin: new URL(page.url()).origin },
      maxRedirects: 0,
    });
    expect(saved.status()).toBeLessThan(400);
    await page.goto("/dashboard/access");
    await expect(page.locator("html")).toHaveAttribute("lang", "de");
    const sidebar = page.getByTestId("sidebar");
    await expect(sidebar.getByRole("link", { name: "Mannschaften" })).toBeVisible();
    await expect(sidebar.getByRole("link", { name: "Squads" })).toHaveCount(0);
    // Built-in items never renamed keep our German.
    await expect(sidebar.getByRole("link", { name: "Benutzer" })).toBeVisible();
    await expect(page.getByRole("columnheader", { name: new RegExp(german) })).toBeVisible();
    await expect(page.getByRole("checkbox", { name: `${german}: Dashboard öffnen` })).toBeVisible();
    // The fields are named in the page's language.
    await expect(
      page.getByRole("textbox", { name: `Bezeichnung auf Deutsch von auditor_${suffix}` }),
    ).toHaveValue(german);
    await axe(page, "access page with the label fields (de)");

    // Someone reading English sees the labels as written.
    const context = await browser.newContext();
    const other = await context.newPage();
    const english = await createUser(["admin"], "Label Reader");
    await login(english, other, "/dashboard/access");
    await expect(other.locator("html")).toHaveAttribute("lang", "en");
    await expect(other.getByTestId("sidebar").getByRole("link", { name: "Squads" })).toBeVisible();
    await expect(other.getByTestId("sidebar").getByRole("link", { name: "Mannschaften" })).toHaveCount(0);
    await expect(other.getByRole("columnheader", { name: new RegExp(label) })).toBeVisible();
    await expect(other.getByRole("columnheader", { name: new RegExp(german) })).toHaveCount(0);
    await context.close();
    expect(problems).toEqual([]);
  } finally {
    // Put the menu back for the specs that run after this one on the same server.
    await restoreTeams(page);
  }
});

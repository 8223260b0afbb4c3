import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { E2E_ADMIN } from "./env";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Saved views (docs/decisions/039-saved-views.md) by keyboard only: save a filtered users list
// under a name, find it named on the Views button after a reload, open it from the Views menu and
// from the command palette; the audit log's control in German; a view shared with a role seen by
// another holder of that role.

async function axe(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(
    result.violations.map((v) => `${label}: ${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`),
  ).toEqual([]);
}

const viewsButton = (page: Page) => page.getByTestId("saved-views").getByRole("button").first();

/** Opens the Views menu from the keyboard and returns it. */
async function openViewsMenu(page: Page) {
  await tabTo(page, viewsButton(page));
  await page.keyboard.press("Enter");
  // Named by its button (Radix): "Views", or "View: <name>" while one is open.
  const menu = page.getByRole("menu", { name: /^(Views|View: |Ansichten|Ansicht: )/ });
  await expect(menu).toBeVisible();
  return menu;
}

/** Moves through the open menu with the arrow keys until `item` is highlighted, then picks it. */
async function pick(page: Page, item: ReturnType<Page["getByRole"]>) {
  for (let i = 0; i < 60; i++) {
    if (await item.evaluate((el) => el === document.activeElement)) break;
    await page.keyboard.press("ArrowDown");
  }
  await expect(item).toBeFocused();
  await page.keyboard.press("Enter");
}

test("a filtered users list is saved by keyboard, named after a reload, and opened from the menu and the palette", async ({
  login,
  page,
}) => {
  // A long keyboard walk with six axe scans: 31 s alone, past the default 60 s beside two other workers.
  test.setTimeout(120_000);
  const problems = watchConsole(page);
  const tag = `sv${randomUUID().slice(0, 6)}`;
  await createUser(["user"], `Saved ${tag} Person`);
  const name = `Find ${tag}`;
  await login(E2E_ADMIN, page, "/dashboard/users");

  // Filter by keyboard: the search applies once typing settles.
  await tabTo(page, page.getByRole("searchbox", { name: "Search" }));
  await page.keyboard.type(tag);
  await expect(page).toHaveURL(new RegExp(`q=${tag}`));
  await expect(page.getByRole("link", { name: `Saved ${tag} Person` })).toBeVisible();
  await expect(viewsButton(page)).toHaveText("Views");

  const menu = await openViewsMenu(page);
  await axe(page, "views menu");
  await pick(page, menu.getByRole("menuitem", { name: "Save view…" }));
  const dialog = page.getByRole("dialog", { name: "Save this view" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Name")).toBeFocused();
  await expect(dialog.getByLabel("Share with role")).toBeVisible(); // an admin manages roles
  await axe(page, "save dialog");
  // An empty name is refused where it is typed.
  await page.keyboard.press("Enter");
  await expect(dialog.getByText("Enter a name.")).toBeVisible();
  await page.keyboard.type(name);
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: `Saved the view “${name}”.` })).toBeVisible();
  await expect(viewsButton(page)).toHaveText(`View: ${name}`);

  // Kept: after a reload the open view is still named.
  await page.reload();
  await expect(viewsButton(page)).toHaveText(`View: ${name}`);

  // From the unfiltered list, the menu opens it.
  await page.goto("/dashboard/users");
  await expect(viewsButton(page)).toHaveText("Views");
  const again = await openViewsMenu(page);
  await expect(again.getByRole("menuitem", { name: "Save view…" })).toBeVisible();
  await pick(page, again.getByRole("menuitem", { name }));
  await expect(page).toHaveURL(`/dashboard/users?q=${tag}`);
  await expect(page.getByRole("link", { name: `Saved ${tag} Person` })).toBeVisible();
  await expect(viewsButton(page)).toHaveText(`View: ${name}`);

  // From anywhere, the palette opens it.
  await page.goto("/dashboard");
  await page.keyboard.press("Control+k");
  const palette = page.getByRole("dialog", { name: /Go to or do/ });
  await expect(palette.getByRole("combobox")).toBeFocused();
  await page.keyboard.type(tag);
  const group = palette.getByRole("group", { name: "Saved views" });
  await expect(group.getByRole("option")).toHaveText([`${name}Users`]);
  await axe(page, "palette with saved views");
  // The first match is chosen (saved views come before the person the tag also finds).
  await expect(group.getByRole("option").first()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(`/dashboard/users?q=${tag}`);
  await expect(viewsButton(page)).toHaveText(`View: ${name}`);

  // Manage: rename, then delete, by keyboard.
  const manage = await openViewsMenu(page);
  await pick(page, manage.getByRole("menuitem", { name: "Manage views…" }));
  const manager = page.getByRole("dialog", { name: "Manage views" });
  await expect(manager).toBeVisible();
  await axe(page, "manage dialog");
  const field = manager.getByLabel(`Name of “${name}”`);
  await tabTo(page, field);
  await page.keyboard.press("Control+a");
  await page.keyboard.type(`${name} renamed`);
  await page.keyboard.press("Enter");
  await expect(
    page.getByRole("status").filter({ hasText: `Renamed the view to “${name} renamed”.` }),
  ).toBeVisible();
  await expect(manager.getByLabel(`Name of “${name} renamed”`)).toBeFocused();
  await tabTo(page, manager.getByRole("button", { name: `Delete the view “${name} renamed”` }));
  await page.keyboard.press("Enter");
  await expect(
    page.getByRole("status").filter({ hasText: `Deleted the view “${name} renamed”.` }),
  ).toBeVisible();
  await expect(manager.getByRole("button", { name: "Close" }).first()).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(viewsButton(page)).toHaveText("Views");
  await expect(viewsButton(page)).toBeFocused();
  expect(problems).toEqual([]);
});

test("a view shared with a role is listed, marked, for another holder of that role who reads the list", async ({
  login,
  page,
  browser,
}) => {
  const problems = watchConsole(page);
  const tag = `sh${randomUUID().slice(0, 6)}`;
  const name = `Disabled ${tag}`;
  await login(E2E_ADMIN, page, "/dashboard/users?status=disabled");
  const menu = await openViewsMenu(page);
  await pick(page, menu.getByRole("menuitem", { name: "Save view…" }));
  const dialog = page.getByRole("dialog", { name: "Save this view" });
  await page.keyboard.type(name);
  await tabTo(page, dialog.getByLabel("Share with role"));
  await dialog.getByLabel("Share with role").selectOption({ label: "Manager" });
  await tabTo(page, dialog.getByRole("button", { name: "Save view" }));
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(viewsButton(page)).toHaveText(`View: ${name}`);

  // A manager (reads users, holds the role) sees it marked as shared; a plain user never does.
  const manager = await createUser(["manager"], `Manager ${tag}`);
  const context = await browser.newContext();
  const other = await context.newPage();
  try {
    const otherProblems = watchConsole(other);
    await login(manager, other, "/dashboard/users");
    const shared = await openViewsMenu(other);
    await expect(shared.getByText("Shared with me")).toBeVisible();
    const item = shared.getByRole("menuitem", { name: new RegExp(name) });
    await expect(item).toContainText("shared with Manager");
    await axe(other, "shared view in the menu");
    await pick(other, item);
    await expect(other).toHaveURL("/dashboard/users?status=disabled");
    await expect(viewsButton(other)).toHaveText(`View: ${name}`);
    // Not theirs to change: no Manage entry for it.
    const again = await openViewsMenu(other);
    await expect(again.getByRole("menuitem", { name: "Manage views…" })).toHaveCount(0);
    await other.keyboard.press("Escape");
    expect(otherProblems).toEqual([]);
  } finally {
    await context.close();
  }
  expect(problems).toEqual([]);
});

test.describe("in German", () => {
  test.use({ locale: "de-DE" });
  test("the audit log's Views control, its dialog and the palette speak German", async ({ login, page }) => {
    const problems = watchConsole(page);
    const tag = `de${randomUUID().slice(0, 6)}`;
    const name = `Anmeldungen ${tag}`;
    await login(E2E_ADMIN, page, `/dashboard/logs?actor=${tag}`);
    await expect(viewsButton(page)).toHaveText("Ansichten");
    const menu = await openViewsMenu(page);
    await expect(
      menu.getByText("Noch keine gespeicherten Ansichten.").or(menu.getByText("Meine Ansichten")),
    ).toBeVisible();
    await pick(page, menu.getByRole("menuitem", { name: "Ansicht speichern…" }));
    const dialog = page.getByRole("dialog", { name: "Diese Ansicht speichern" });
    await expect(dialog.getByLabel("Mit Rolle teilen")).toBeVisible();
    await expect(dialog.getByRole("option", { name: "Nur ich" })).toHaveCount(1);
    await axe(page, "German save dialog");
    await page.keyboard.type(name);
    await page.keyboard.press("Enter");
    await expect(
      page.getByRole("status").filter({ hasText: `Ansicht „${name}“ gespeichert.` }),
    ).toBeVisible();
    await expect(viewsButton(page)).toHaveText(`Ansicht: ${name}`);

    await page.keyboard.press("Control+k");
    const palette = page.getByRole("dialog", { name: /Wohin oder was tun/ });
    await page.keyboard.type(tag);
    await expect(
      palette.getByRole("group", { name: "Gespeicherte Ansichten" }).getByRole("option"),
    ).toHaveText([`${name}Audit-Log`]);
    await page.keyboard.press("Escape");
    await axe(page, "German audit log");
    expect(problems).toEqual([]);
  });
});

import type { Page } from "@playwright/test";
import { PERMISSIONS } from "../app/access/permissions";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import {
  axeBothThemes,
  axeBuilder,
  chooseTheme,
  createUser,
  expect,
  tabTo,
  test,
  watchConsole,
} from "./fixtures";

// The access page by keyboard only: the matrix saved in one go with its unsaved-changes bar and
// leave warning, scrolled in its own box with many roles; a role created and deleted
// (type-to-confirm) in the Roles tab; the menu reordered, an item added, hidden and shown.

const PHONE = { width: 390, height: 844 };
const PERMISSION_COUNT = PERMISSIONS.length;

async function permissionsOf(roleName: string) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    const rows = await db
      .selectFrom("role_permission")
      .innerJoin("role", "role.id", "role_permission.role_id")
      .innerJoin("permission", "permission.id", "role_permission.permission_id")
      .select("permission.key")
      .where("role.name", "=", roleName)
      .execute();
    return rows.map((r) => r.key).sort();
  } finally {
    await db.destroy();
  }
}

/**
 * A custom role, made through the page's own action (the server caches roles, so a row written
 * behind its back would not show). An existing one answers 403 and stays.
 */
async function ensureRole(page: Page, name: string, label: string) {
  const response = await page.request.post("/dashboard/access", {
    form: { intent: "create-role", name, label },
    headers: { Origin: new URL(page.url()).origin },
    maxRedirects: 0,
  });
  expect([302, 403]).toContain(response.status());
}

type Tab = "Permissions" | "Roles" | "Menu";

async function openAccess(page: Page) {
  await page.goto("/dashboard/access");
  await expect(page.getByRole("heading", { name: "Access control" })).toBeVisible();
  // Arrow keys on the tabs before hydration would go nowhere.
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "");
}

/** Into a tab as a keyboard user does: Tab into the tab list, then the arrow keys. */
async function openTab(page: Page, name: Tab) {
  const tabs = page.getByRole("tablist", { name: "Access control sections" });
  const selected = tabs.getByRole("tab", { selected: true });
  await tabTo(page, selected);
  const order: Tab[] = ["Permissions", "Roles", "Menu"];
  // Its name may carry " (unsaved changes)".
  const text = (await selected.textContent())!.trim();
  const from = order.findIndex((tab) => text.startsWith(tab));
  const to = order.indexOf(name);
  for (let i = from; i !== to; i += Math.sign(to - from)) {
    await page.keyboard.press(to > from ? "ArrowRight" : "ArrowLeft");
    // Each step shown before the next key, as a person reads the tab they arrive on.
    await expect(tabs.getByRole("tab", { selected: true })).toHaveText(
      new RegExp(`^${order[i + Math.sign(to - from)]}`),
    );
  }
  await expect(tabs.getByRole("tab", { name })).toHaveAttribute("aria-selected", "true");
}

async function axe(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(
    result.violations.map((v) => `${label}: ${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`),
  ).toEqual([]);
}

test("the matrix by keyboard: two ticks in two roles, one save, focus on the result", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await login(E2E_ADMIN);
  // Roles of its own, so the built-in ones other specs rely on stay as they are.
  await ensureRole(page, "matrix_a", "Matrix A");
  await ensureRole(page, "matrix_b", "Matrix B");
  await openAccess(page);
  const guestTeams = page.getByRole("checkbox", { name: "Matrix A: View Teams" });
  const userLogs = page.getByRole("checkbox", { name: "Matrix B: View Audit Logs" });
  await expect(guestTeams).not.toBeChecked();
  await expect(userLogs).not.toBeChecked();

  await tabTo(page, guestTeams);
  await page.keyboard.press("Space");
  await tabTo(page, userLogs);
  await page.keyboard.press("Space");
  const bar = page.getByRole("status").filter({ hasText: /unsaved change/ });
  await expect(bar).toHaveText("2 unsaved changes");

  const save = page.getByRole("button", { name: "Save", exact: true });
  await tabTo(page, save);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Permissions saved for 2 roles." })).toBeVisible();
  // The bar went with its buttons: the keyboard is back on the matrix, not in the toast.
  await expect(page.getByTestId("matrix-region")).toBeFocused();
  await expect(guestTeams).toBeChecked();
  await expect(userLogs).toBeChecked();
  await expect(page.getByRole("button", { name: "Save", exact: true })).toHaveCount(0);
  expect(await permissionsOf("matrix_a")).toEqual(["team.read"]);
  expect(await permissionsOf("matrix_b")).toEqual(["log.read"]);
  expect(problems).toEqual([]);
});

test("leaving with an unsaved tick asks first: Escape stays, Leave discards", async ({ login, page }) => {
  await login(E2E_ADMIN);
  await openAccess(page);
  const box = page.getByRole("checkbox", { name: "Manager: Manage Teams" });
  const was = await box.isChecked();
  await tabTo(page, box);
  await page.keyboard.press("Space");
  await expect(page.getByRole("status").filter({ hasText: /unsaved/ })).toHaveText("1 unsaved change");

  const teamsLink = page.getByTestId("sidebar").getByRole("link", { name: "Teams" });
  await tabTo(page, teamsLink, { back: true });
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
  await expect(dialog).toBeVisible();
  await axe(page, "leave dialog");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/dashboard\/access$/);
  await expect(teamsLink).toBeFocused();
  await expect(box).toBeChecked({ checked: !was });

  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await tabTo(page, dialog.getByRole("button", { name: "Leave without saving" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/teams$/);
  await openAccess(page);
  await expect(page.getByRole("checkbox", { name: "Manager: Manage Teams" })).toBeChecked({ checked: was });
});

test("unsaved ticks survive a tab switch: the tab says so, the address follows, the page's data is not loaded again", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN);
  await openAccess(page);
  const box = page.getByRole("checkbox", { name: "Guest: View Teams" });
  const was = await box.isChecked();
  await tabTo(page, box);
  await page.keyboard.press("Space");
  const permissions = page.getByRole("tab", { name: /^Permissions/ });
  await expect(permissions).toHaveAccessibleName("Permissions (unsaved changes)");
  const loads: string[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname.endsWith(".data")) loads.push(decodeURIComponent(r.url()));
  });
  await openTab(page, "Menu");
  await expect(page).toHaveURL(/\?tab=menu$/);
  await expect(box).toBeHidden();
  // Another tab of the same page: no leave warning.
  await expect(page.getByRole("dialog")).toHaveCount(0);
  // Back returns through the tabs. The Roles tab passed on the way has its own entry only if its
  // navigation committed before the next key (keys faster than that leave one entry).
  await page.goBack();
  await expect(page).toHaveURL(/\/dashboard\/access(\?tab=roles)?$/);
  if (page.url().endsWith("?tab=roles")) await page.goBack();
  await expect(page).toHaveURL(/\/dashboard\/access$/);
  await expect(box).toBeChecked({ checked: !was });
  await expect(page.getByRole("status").filter({ hasText: /unsaved/ })).toHaveText("1 unsaved change");
  // Every tab is on the page already: switching loads the shell's data (root, layout), not the page's.
  expect(loads.length).toBeGreaterThan(0);
  expect(loads.filter((url) => url.includes("dashboard.access"))).toEqual([]);
  await tabTo(page, page.getByRole("button", { name: "Discard" }));
  await page.keyboard.press("Enter");
  await expect(permissions).toHaveAccessibleName("Permissions");
});

test("create a role (form empties), then delete it while someone holds it: type its name", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN);
  await openAccess(page);
  await openTab(page, "Roles");
  await expect(page).toHaveURL(/\/dashboard\/access\?tab=roles$/);
  const roles = page.getByRole("region", { name: "All roles" });
  const name = page.getByLabel("Name", { exact: true });
  await tabTo(page, name);
  await page.keyboard.type("night_shift");
  await page.keyboard.press("Tab");
  await page.keyboard.type("Night Shift");
  await page.keyboard.press("Tab"); // the first permission
  await page.keyboard.press("Space");
  await tabTo(page, page.getByRole("button", { name: "Create role" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: 'Role "Night Shift" created.' })).toBeVisible();
  // Still on the Roles tab, the new role listed; the matrix (another tab) has its column too.
  await expect(page).toHaveURL(/\?tab=roles$/);
  await expect(roles.getByRole("row", { name: /Night Shift/ })).toContainText("night_shift");
  await expect(page.getByRole("columnheader", { name: /Night Shift/ })).toBeHidden();
  await expect(name).toHaveValue("");
  await expect(page.getByLabel("Label", { exact: true })).toHaveValue("");
  await expect(
    page.getByRole("group", { name: "Permissions" }).getByRole("checkbox", { checked: true }),
  ).toHaveCount(0);

  await createUser(["night_shift"], "Night Worker");
  await page.reload();
  await expect(page.getByRole("tab", { name: "Roles" })).toHaveAttribute("aria-selected", "true");
  const trigger = roles.getByRole("button", { name: "Delete Night Shift" });
  await tabTo(page, trigger);
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: 'Delete the role "Night Shift"?' });
  await expect(dialog).toContainText("1 member will lose it");
  const confirm = dialog.getByRole("button", { name: "Delete role" });
  await expect(confirm).toBeDisabled();
  await axe(page, "delete dialog");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(trigger).toBeFocused();

  await page.keyboard.press("Enter");
  await tabTo(page, dialog.getByLabel(/type the role's name/));
  await page.keyboard.type("night_shif");
  await expect(confirm).toBeDisabled();
  await page.keyboard.type("t");
  await expect(confirm).toBeEnabled();
  await page.keyboard.press("Tab");
  await tabTo(page, confirm);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Role deleted." })).toBeVisible();
  await expect(page).toHaveURL(/\?tab=roles$/);
  await expect(roles.getByRole("row", { name: /Night Shift/ })).toHaveCount(0);
  await expect(page.getByRole("columnheader", { name: /Night Shift/, includeHidden: true })).toHaveCount(0);
});

test("the menu editor: move an item up by keyboard, save, the sidebar follows", async ({ login, page }) => {
  await login(E2E_ADMIN);
  await openAccess(page);
  await openTab(page, "Menu");
  const sidebar = page.getByTestId("sidebar").getByRole("link");
  const before = await sidebar.allTextContents();
  const second = before[1]!;
  const up = page.getByRole("button", { name: `Move ${second} up` });
  await tabTo(page, up);
  await page.keyboard.press("Enter");
  // Focus stays with the moved item, now first: its "Move up" is disabled, so "Move down".
  await expect(page.getByRole("button", { name: `Move ${second} down` })).toBeFocused();
  await tabTo(page, page.getByRole("button", { name: "Save menu" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Menu saved." })).toBeVisible();
  await expect(sidebar.first()).toHaveText(second);
  expect((await sidebar.allTextContents()).slice(0, 2)).toEqual([second, before[0]]);

  // Put it back for the other specs.
  await tabTo(page, page.getByRole("button", { name: `Move ${second} down` }));
  await page.keyboard.press("Enter");
  await tabTo(page, page.getByRole("button", { name: "Save menu" }));
  await page.keyboard.press("Enter");
  await expect(sidebar.first()).toHaveText(before[0]!);
});

test("many roles at 1280 px: the matrix scrolls in its own box, the permission column stays, the page never scrolls sideways", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await login(E2E_ADMIN);
  for (const letter of ["a", "b", "c"])
    await ensureRole(page, `wide_${letter}`, `Wide ${letter.toUpperCase()}`);
  await openAccess(page);
  const region = page.getByRole("region", { name: "Permissions matrix" });
  const headers = region.getByRole("columnheader");
  // The permission column and five built-in roles, then at least the three above.
  expect(await headers.count()).toBeGreaterThanOrEqual(9);
  const last = headers.last();
  const lastDelete = last.getByRole("button", { name: /^Delete / });
  const permission = region.getByRole("rowheader", { name: /View Users/ });
  const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);

  expect(await region.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  expect(await pageWidth()).toBeLessThanOrEqual(1280);
  await expect(lastDelete).not.toBeInViewport();

  // By keyboard: Tab forward to the last role's Delete (through the header row, so the box scrolls
  // sideways only); the box scrolls it into view, the page does not.
  await tabTo(page, lastDelete, { back: false });
  await expect(lastDelete).toBeInViewport();
  expect(await region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  expect(await page.evaluate(() => window.scrollX)).toBe(0);
  expect(await pageWidth()).toBeLessThanOrEqual(1280);

  /** Nothing sits on top of it: the element at its centre is it, or inside it. */
  const onTop = (locator: typeof last) =>
    locator.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return hit !== null && el.contains(hit);
    });
  expect(await onTop(lastDelete)).toBe(true);
  // Scrolled to the far right, the permission names are still there at the left.
  await region.evaluate((el) => {
    el.scrollLeft = el.scrollWidth;
  });
  await expect(permission).toBeInViewport();
  expect(await onTop(permission)).toBe(true);
  const [regionBox, permissionBox] = [await region.boundingBox(), await permission.boundingBox()];
  expect(Math.abs(permissionBox!.x - regionBox!.x)).toBeLessThanOrEqual(2);
  // Scrolled down, the role names stay on top.
  await region.evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await expect(last).toBeInViewport();
  expect(await onTop(last.getByText(/^Wide C/))).toBe(true);
  expect(Math.abs((await last.boundingBox())!.y - (await region.boundingBox())!.y)).toBeLessThanOrEqual(2);
  expect(problems).toEqual([]);
});

async function menuRow(url: string) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await db.selectFrom("menu_item").selectAll().where("url", "=", url).executeTakeFirst();
  } finally {
    await db.destroy();
  }
}

test("the menu: add an item by keyboard from the app's pages, it is in the sidebar; hide it, it is gone; show it", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await login(E2E_ADMIN);
  await openAccess(page);
  await openTab(page, "Menu");
  await expect(page).toHaveURL(/\?tab=menu$/);
  const add = page.locator("form#add-menu-item");
  const sidebar = page.getByTestId("sidebar");
  const title = add.getByLabel("Title");
  await tabTo(page, title);
  await page.keyboard.type("Task history");
  await page.keyboard.press("Tab");
  const where = add.getByLabel("Page");
  await expect(where).toBeFocused();
  // A page another item leads to is listed, and not offered.
  await expect(where.locator("option", { hasText: "already in the menu as “Users”" })).toBeDisabled();
  for (let i = 0; i < 20 && (await where.inputValue()) !== "/dashboard/tasks"; i++)
    await page.keyboard.press("ArrowDown");
  await expect(where).toHaveValue("/dashboard/tasks");
  await page.keyboard.press("Tab");
  await expect(add.getByLabel("Icon")).toBeFocused();
  await page.keyboard.type("Activity");
  await expect(add.getByLabel("Icon")).toHaveValue("Activity");
  await tabTo(page, add.getByRole("button", { name: "Add item" }));
  await page.keyboard.press("Enter");

  await expect(page.getByRole("status").filter({ hasText: 'Menu item "Task history" added.' })).toBeVisible();
  await expect(page).toHaveURL(/\?tab=menu$/);
  const link = sidebar.getByRole("link", { name: "Task history" });
  await expect(link).toBeVisible();
  await expect(title).toHaveValue("");
  expect(await menuRow("/dashboard/tasks")).toMatchObject({
    title: "Task history",
    icon: "Activity",
    hidden: 0,
  });

  const hide = page.getByRole("button", { name: "Hide Task history from the sidebar" });
  await tabTo(page, hide);
  await page.keyboard.press("Enter");
  await expect(
    page.getByRole("status").filter({ hasText: "Menu item hidden from the sidebar." }),
  ).toBeVisible();
  await expect(link).toHaveCount(0);
  // Still in the editor, marked, with its way back.
  const show = page.getByRole("button", { name: "Show Task history in the sidebar" });
  await expect(page.locator("li[data-item]").filter({ has: show })).toContainText("Hidden from the sidebar");
  expect(await menuRow("/dashboard/tasks")).toMatchObject({ hidden: 1 });
  await page.reload();
  await expect(link).toHaveCount(0);

  await tabTo(page, show);
  await page.keyboard.press("Enter");
  await expect(
    page.getByRole("status").filter({ hasText: "Menu item shown in the sidebar again." }),
  ).toBeVisible();
  await expect(link).toBeVisible();
  // Hidden again, so the other specs see the seeded sidebar.
  await tabTo(page, hide);
  await page.keyboard.press("Enter");
  await expect(link).toHaveCount(0);
  expect(problems).toEqual([]);
});

test.describe("in German", () => {
  test.use({ locale: "de-DE" });
  test("the tabs, the roles list and the menu's new controls speak German", async ({ login, page }) => {
    await login(E2E_ADMIN);
    await page.goto("/dashboard/access?tab=roles");
    await expect(page.getByRole("heading", { level: 1, name: "Zugriffskontrolle" })).toBeVisible();
    const tabs = page.getByRole("tablist", { name: "Bereiche der Zugriffskontrolle" });
    await expect(tabs.getByRole("tab")).toHaveText(["Berechtigungen", "Rollen", "Menü", "Wer darf"]);
    await expect(tabs.getByRole("tab", { name: "Rollen" })).toHaveAttribute("aria-selected", "true");
    const roles = page.getByRole("region", { name: "Alle Rollen" });
    await expect(roles.getByRole("columnheader", { name: "Mitglieder" })).toBeVisible();
    await expect(roles.getByRole("row", { name: /super_admin/ })).toContainText("Vordefiniert");
    await expect(page.getByRole("button", { name: "Rolle anlegen" })).toBeVisible();
    await axe(page, "roles (de)");

    await openTabDe(page);
    await expect(page.getByRole("heading", { name: "Menüeintrag hinzufügen" })).toBeVisible();
    const where = page.locator("form#add-menu-item").getByLabel("Seite");
    await expect(where.locator("option").first()).toHaveText("Seite wählen …");
    await expect(where.locator("option", { hasText: "bereits im Menü als" }).first()).toBeDisabled();
    await expect(
      page.getByRole("button", { name: /in der Seitenleiste (aus|ein)blenden$/ }).first(),
    ).toBeVisible();
    await axe(page, "menu (de)");
  });
});

/** From the Roles tab to the Menu tab, by keyboard. */
async function openTabDe(page: Page) {
  await tabTo(page, page.getByRole("tab", { name: "Rollen" }));
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Menü" })).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(/\?tab=menu$/);
}

for (const viewport of ["desktop", "phone"] as const) {
  test(`axe: the access page, ${viewport}, light and dark`, async ({ login, page }) => {
    // Six scans of the largest page, each in both themes: past the minute on a loaded machine.
    test.setTimeout(120_000);
    const problems = watchConsole(page);
    await page.setViewportSize(viewport === "phone" ? PHONE : { width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    await login(E2E_ADMIN);
    await ensureRole(page, "axe_role", "Axe Role");
    await chooseTheme(page, "light");
    await openAccess(page);
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    // The page as it opens is scanned by e2e/a11y.spec.ts's super admin sweep, in both viewports.
    if (viewport === "phone") {
      // One card per role, each permission on its own line: nothing scrolls sideways.
      const cards = page.getByTestId("role-cards").getByRole("group");
      await expect(cards.filter({ hasText: "Axe Role" })).toBeVisible();
      await expect(cards.filter({ hasText: "Guest" }).getByRole("checkbox")).toHaveCount(PERMISSION_COUNT);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        PHONE.width,
      );
    }
    // With changes pending: the bar, then the leave dialog.
    await page.getByRole("checkbox", { name: "Guest: Create Users" }).press("Space");
    expect(await axeBothThemes(page, "unsaved bar")).toEqual([]);
    if (viewport === "phone") {
      await page.getByRole("button", { name: "Open menu" }).press("Enter");
      await page.getByRole("dialog").getByRole("link", { name: "Users" }).press("Enter");
    } else {
      await page.getByTestId("sidebar").getByRole("link", { name: "Users" }).press("Enter");
    }
    const leave = page.getByRole("dialog", { name: "Leave without saving?" });
    await expect(leave).toBeVisible();
    expect(await axeBothThemes(page, "leave dialog")).toEqual([]);
    await page.keyboard.press("Escape");
    await expect(leave).toBeHidden();
    if (viewport === "phone") await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Discard" }).press("Enter");
    await expect(page.getByRole("button", { name: "Discard" })).toHaveCount(0);
    await page
      .getByRole("button", { name: /^Delete / })
      .first()
      .press("Enter");
    await expect(page.getByRole("alertdialog")).toBeVisible();
    expect(await axeBothThemes(page, "confirm dialog")).toEqual([]);
    await page.keyboard.press("Escape");
    // The other tabs, each at its own address.
    for (const [tab, heading] of [
      ["Roles", "Create a role"],
      ["Menu", "Add a menu item"],
    ] as const) {
      await openTab(page, tab);
      await expect(page.getByRole("heading", { name: heading })).toBeVisible();
      if (viewport === "phone")
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          PHONE.width,
        );
      expect(await axeBothThemes(page, `${tab} tab`)).toEqual([]);
    }
    expect(problems).toEqual([]);
  });
}

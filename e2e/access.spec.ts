import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { axeBuilder, chooseTheme, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// The access page by keyboard only: the matrix saved in one go with its unsaved-changes bar and
// leave warning, a role created and deleted (type-to-confirm), the menu reordered.

const PHONE = { width: 390, height: 844 };

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

async function openAccess(page: Page) {
  await page.goto("/dashboard/access");
  await expect(page.getByRole("heading", { name: "Access control" })).toBeVisible();
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
  await expect(page.getByRole("region", { name: "Updates" })).toBeFocused();
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

test("create a role (form empties), then delete it while someone holds it: type its name", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN);
  await openAccess(page);
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
  await expect(page.getByRole("columnheader", { name: /Night Shift/ })).toBeVisible();
  await expect(name).toHaveValue("");
  await expect(page.getByLabel("Label", { exact: true })).toHaveValue("");
  await expect(
    page.getByRole("group", { name: "Permissions" }).getByRole("checkbox", { checked: true }),
  ).toHaveCount(0);

  await createUser(["night_shift"], "Night Worker");
  await page.reload();
  const trigger = page.getByRole("button", { name: "Delete Night Shift" });
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
  await expect(page.getByRole("columnheader", { name: /Night Shift/ })).toHaveCount(0);
});

test("the menu editor: move an item up by keyboard, save, the sidebar follows", async ({ login, page }) => {
  await login(E2E_ADMIN);
  await openAccess(page);
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

for (const viewport of ["desktop", "phone"] as const) {
  for (const theme of ["light", "dark"] as const) {
    test(`axe: the access page, ${viewport}, ${theme}`, async ({ login, page }) => {
      const problems = watchConsole(page);
      await page.setViewportSize(viewport === "phone" ? PHONE : { width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: theme });
      await login(E2E_ADMIN);
      await ensureRole(page, "axe_role", "Axe Role");
      await chooseTheme(page, theme);
      await openAccess(page);
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      await axe(page, "page");
      if (viewport === "phone") {
        // The matrix scrolls inside its region, not the page.
        const region = page.getByRole("region", { name: "Permissions matrix" });
        expect(await region.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          PHONE.width,
        );
      }
      // With changes pending: the bar, then the leave dialog.
      await page.getByRole("checkbox", { name: "Guest: Create Users" }).press("Space");
      await axe(page, "unsaved bar");
      if (viewport === "phone") {
        await page.getByRole("button", { name: "Open menu" }).press("Enter");
        await page.getByRole("dialog").getByRole("link", { name: "Users" }).press("Enter");
      } else {
        await page.getByTestId("sidebar").getByRole("link", { name: "Users" }).press("Enter");
      }
      const leave = page.getByRole("dialog", { name: "Leave without saving?" });
      await expect(leave).toBeVisible();
      await axe(page, "leave dialog");
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
      await axe(page, "confirm dialog");
      await page.keyboard.press("Escape");
      expect(problems).toEqual([]);
    });
  }
}

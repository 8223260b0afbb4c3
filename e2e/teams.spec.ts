import type { Locator, Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_DB } from "./env";
import { axeBothThemes, chooseTheme, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Teams by keyboard only: create a team, add several members at once through the search combobox,
// search the members, remove one from its row's menu behind the confirmation, delete the team by
// typing its name; axe with the combobox, the menu and the dialogs open, desktop and phone.

const PHONE = { width: 390, height: 844 };

async function teamMembers(name: string) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await db
      .selectFrom("team_member")
      .innerJoin("team", "team.id", "team_member.team_id")
      .innerJoin("user", "user.id", "team_member.user_id")
      .select(["user.name", "team_member.team_role"])
      .where("team.name", "=", name)
      .execute();
  } finally {
    await db.destroy();
  }
}

/** Down the open menu until `item` has the focus (Radix focuses the first item a moment after opening). */
async function arrowTo(page: Page, item: Locator) {
  for (let i = 0; i < 6; i++) {
    if (await item.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("ArrowDown");
  }
  await expect(item).toBeFocused();
}

test("keyboard only: create a team, add two members at once, search them, remove one from its row's menu", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const manager = await createUser(["manager"], "Team Keyboard Manager");
  const person = await createUser(["user"], "Zephyrine Quill");
  const second = await createUser(["user"], "Ottoline Marsh");
  await login(manager, page, "/dashboard/teams");
  const teamName = `Kb Team ${Date.now()}`;

  // Create: type, Enter submits; the new team's page opens and the form's result is announced.
  await tabTo(page, page.getByLabel("Team name"));
  await page.keyboard.type(teamName);
  await page.keyboard.press("Tab");
  await page.keyboard.type("Made by keyboard");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: teamName })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: `Team "${teamName}" created.` })).toBeVisible();

  // Add members at the top: each person found and taken with Enter joins the list, then one Add.
  const add = page.getByRole("button", { name: "Add members" });
  await tabTo(page, add);
  await page.keyboard.press("Enter");
  const picker = page.getByRole("dialog", { name: `Add members to ${teamName}` });
  const combo = picker.getByRole("combobox", { name: "Find a user by name or email" });
  await expect(combo).toBeFocused();
  // Typed a key at a time on a loaded machine, the search may ask for "zeph" before "zephyr": the
  // list is the last answer's once it has come.
  const answered = (q: string) =>
    page.waitForResponse(
      (r) => r.url().includes("/candidates") && new URL(r.url()).searchParams.get("q") === q,
    );
  let searched = answered("zephyr");
  await page.keyboard.type("zephyr");
  await searched;
  const listbox = picker.getByRole("listbox", { name: "Find a user by name or email" });
  await expect(listbox.getByRole("option", { name: /Zephyrine Quill/ })).toBeVisible();
  await expect(picker.getByText(/1 person found/)).toBeAttached();
  await page.keyboard.press("ArrowDown");
  await expect(combo).toHaveAttribute("aria-activedescendant", /.+/);
  await page.keyboard.press("Enter");
  await expect(picker.getByRole("list", { name: "1 person chosen" })).toContainText("Zephyrine Quill");
  await expect(combo).toBeFocused();
  await expect(combo).toHaveValue("");
  searched = answered("ottoline");
  await page.keyboard.type("ottoline");
  await searched;
  await expect(listbox.getByRole("option", { name: /Ottoline Marsh/ })).toBeVisible();
  await page.keyboard.press("ArrowDown");
  await expect(combo).toHaveAttribute("aria-activedescendant", /.+/);
  await page.keyboard.press("Enter");
  await expect(picker.getByRole("list", { name: "2 people chosen" })).toContainText("Ottoline Marsh");
  // Someone already chosen is not offered again.
  await page.keyboard.type("zephyr");
  await expect(picker.getByRole("status").filter({ hasText: "No one matches “zephyr”." })).toBeAttached();
  await page.keyboard.press("Escape");
  await expect(combo).toHaveValue("");
  await tabTo(page, picker.getByRole("button", { name: "Add 2 members" }));
  await page.keyboard.press("Enter");
  await expect(picker).toBeHidden();
  await expect(add).toBeFocused();
  const region = page.getByRole("region", { name: "Updates" });
  await expect(
    region.getByRole("status").filter({ hasText: "Added 2 members: Zephyrine Quill, Ottoline Marsh." }),
  ).toBeVisible();
  const members = page.getByRole("table", { name: `Members of ${teamName}` });
  await expect(members.getByRole("row", { name: /Zephyrine Quill/ })).toContainText("Member");
  expect(await teamMembers(teamName)).toHaveLength(2);

  // The members' search narrows the table as it is typed.
  await tabTo(page, page.getByLabel("Search members"), { back: true });
  await page.keyboard.type("otto");
  await expect(members.getByRole("row", { name: /Zephyrine Quill/ })).toBeHidden();
  await expect(members.getByRole("row", { name: /Ottoline Marsh/ })).toBeVisible();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Backspace");
  await expect(members.getByRole("row", { name: /Zephyrine Quill/ })).toBeVisible();

  // A row's acts are in its menu; Remove asks first, and Escape gives the menu button its focus back.
  const rowMenu = members.getByRole("button", { name: "Actions for Zephyrine Quill" });
  await tabTo(page, rowMenu);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menuitem")).toHaveText(["Make lead", "Remove from team"]);
  await arrowTo(page, page.getByRole("menuitem", { name: "Remove from team" }));
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Remove Zephyrine Quill from ${teamName}?` });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(rowMenu).toBeFocused();
  expect(await teamMembers(teamName)).toHaveLength(2);
  await page.keyboard.press("Enter");
  await arrowTo(page, page.getByRole("menuitem", { name: "Remove from team" }));
  await page.keyboard.press("Enter");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Remove from team" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(members.getByRole("row", { name: /Zephyrine Quill/ })).toBeHidden();
  await expect(region.getByRole("status").filter({ hasText: "Member removed." })).toBeVisible();
  expect(await teamMembers(teamName)).toEqual([{ name: second.name, team_role: "member" }]);
  expect(person.name).toBe("Zephyrine Quill");

  expect(problems).toEqual([]);
});

test("deleting a team with members asks for its name to be typed", async ({ login, page }) => {
  const manager = await createUser(["manager"], "Team Delete Manager");
  const person = await createUser(["user"], "Delete Member");
  await login(manager, page, "/dashboard/teams");
  const teamName = `Del Team ${Date.now()}`;
  await page.getByLabel("Team name").fill(teamName);
  await page.getByRole("button", { name: "Create team" }).click();
  await expect(page.getByRole("heading", { level: 1, name: teamName })).toBeVisible();
  await page.getByRole("button", { name: "Add members" }).click();
  await page.getByRole("combobox", { name: "Find a user by name or email" }).fill("Delete Member");
  await page.getByRole("option", { name: new RegExp(person.name) }).click();
  await page.getByRole("button", { name: "Add 1 member" }).click();
  await expect(page.getByRole("row", { name: /Delete Member/ })).toBeVisible();

  const trigger = page.getByRole("button", { name: `Delete team ${teamName}` });
  await trigger.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Delete the team ${teamName}?` });
  await expect(dialog).toContainText("1 person loses their membership");
  const confirm = dialog.getByRole("button", { name: "Delete team" });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(/To confirm, type/).focus();
  await page.keyboard.type(teamName.slice(0, -1));
  await expect(confirm).toBeDisabled();
  // Enter in the box never submits.
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await page.keyboard.type(teamName.slice(-1));
  await expect(confirm).toBeEnabled();
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(confirm).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/teams$/);
  await expect(page.getByRole("status").filter({ hasText: "Team deleted." })).toBeVisible();
  await expect(page.getByRole("link", { name: teamName })).toHaveCount(0);
});

for (const viewport of ["desktop", "phone"] as const) {
  test(`axe: teams and a team with the combobox and dialogs open, ${viewport}, light and dark`, async ({
    login,
    page,
  }) => {
    const problems = watchConsole(page);
    if (viewport === "phone") await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: "light" });
    const manager = await createUser(["manager"], `Axe Teams ${viewport} light`);
    await createUser(["user"], `Axe Candidate ${viewport} light`);
    await chooseTheme(page, "light");
    await login(manager, page, "/dashboard/teams");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    expect(await axeBothThemes(page, "teams")).toEqual([]);

    await page.getByLabel("Team name").fill(`Axe ${viewport} light ${Date.now()}`);
    await page.getByRole("button", { name: "Create team" }).click();
    await expect(page.getByRole("heading", { level: 1, name: /^Axe / })).toBeVisible();
    expect(await axeBothThemes(page, "team, empty")).toEqual([]);

    await page.getByRole("button", { name: "Add members" }).click();
    const combo = page.getByRole("combobox", { name: "Find a user by name or email" });
    await combo.fill(`Axe Candidate ${viewport} light`);
    await expect(page.getByRole("listbox")).toBeVisible();
    await page.keyboard.press("ArrowDown");
    expect(await axeBothThemes(page, "add members, combobox open")).toEqual([]);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Add 1 member" }).click();
    await expect(page.getByRole("row", { name: /Axe Candidate/ })).toBeVisible();
    expect(await axeBothThemes(page, "team with a member")).toEqual([]);

    await page.getByRole("button", { name: /^Actions for Axe Candidate/ }).click();
    await expect(page.getByRole("menu")).toBeVisible();
    expect(await axeBothThemes(page, "row menu open")).toEqual([]);
    await page.getByRole("menuitem", { name: "Remove from team" }).click();
    await expect(page.getByRole("alertdialog")).toBeVisible();
    expect(await axeBothThemes(page, "remove dialog")).toEqual([]);
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: /^Delete team / }).click();
    await expect(page.getByRole("alertdialog")).toBeVisible();
    expect(await axeBothThemes(page, "delete dialog")).toEqual([]);
    await page.keyboard.press("Escape");
    expect(problems).toEqual([]);
  });
}

import { createDb } from "../db/connection";
import { E2E_DB } from "./env";
import { axeBothThemes, chooseTheme, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Teams by keyboard only: create a team, add a member through the search combobox, remove them
// through the confirmation, delete the team by typing its name; axe with the combobox and the
// dialogs open, desktop and phone, light and dark.

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

test("keyboard only: create a team, add a member through the combobox, remove them, delete the team", async ({
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

  // Add a member: type part of the name, arrow down, Enter.
  const combo = page.getByRole("combobox", { name: "Find a user by name or email" });
  await tabTo(page, combo);
  await page.keyboard.type("zephyr");
  const listbox = page.getByRole("listbox", { name: "Find a user by name or email" });
  await expect(listbox.getByRole("option", { name: /Zephyrine Quill/ })).toBeVisible();
  await expect(page.getByText(/1 person found/)).toBeAttached();
  await page.keyboard.press("ArrowDown");
  await expect(combo).toHaveAttribute("aria-activedescendant", /.+/);
  await expect(listbox.getByRole("option", { name: /Zephyrine Quill/ })).toHaveAttribute(
    "aria-selected",
    "true",
  );
  await page.keyboard.press("Enter");
  const members = page.getByRole("table", { name: `Members of ${teamName}` });
  await expect(members.getByRole("row", { name: /Zephyrine Quill/ })).toBeVisible();
  await expect(members.getByRole("row", { name: /Zephyrine Quill/ })).toContainText("Member");
  const region = page.getByRole("region", { name: "Updates" });
  await expect(region.getByRole("status").filter({ hasText: "Member saved." })).toBeVisible();
  // The toast took no focus: the next person is typed straight away (issue 36: 42 keys for 3).
  await expect(combo).toBeFocused();
  expect(await teamMembers(teamName)).toEqual([{ name: person.name, team_role: "member" }]);
  await page.keyboard.type("ottoline");
  await expect(listbox.getByRole("option", { name: /Ottoline Marsh/ })).toBeVisible();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await expect(members.getByRole("row", { name: /Ottoline Marsh/ })).toBeVisible();
  await expect(combo).toBeFocused();
  // The picker never offers someone already in the team.
  await page.keyboard.type("zephyr");
  await expect(page.getByRole("status").filter({ hasText: "No one matches “zephyr”." })).toBeAttached();
  await page.keyboard.press("Escape");
  await expect(combo).toHaveValue("");

  // Remove: the dialog names the person and the team; Escape returns focus to the trigger.
  const remove = members.getByRole("button", { name: "Remove Zephyrine Quill" });
  await tabTo(page, remove);
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Remove Zephyrine Quill from ${teamName}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(remove).toBeFocused();
  expect(await teamMembers(teamName)).toHaveLength(2);
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Remove from team" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(members.getByRole("row", { name: /Zephyrine Quill/ })).toBeHidden();
  await expect(region.getByRole("status").filter({ hasText: "Member removed." })).toBeVisible();
  expect(await teamMembers(teamName)).toEqual([{ name: second.name, team_role: "member" }]);

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
  await page.getByRole("combobox", { name: "Find a user by name or email" }).fill("Delete Member");
  await page.getByRole("option", { name: new RegExp(person.name) }).click();
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

    const combo = page.getByRole("combobox", { name: "Find a user by name or email" });
    await combo.fill(`Axe Candidate ${viewport} light`);
    await expect(page.getByRole("listbox")).toBeVisible();
    await page.keyboard.press("ArrowDown");
    expect(await axeBothThemes(page, "combobox open")).toEqual([]);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("row", { name: /Axe Candidate/ })).toBeVisible();
    expect(await axeBothThemes(page, "team with a member")).toEqual([]);

    await page.getByRole("button", { name: /^Remove Axe Candidate/ }).click();
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

import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
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
import { linkFromMail } from "./mail";

// The users pages by keyboard only (after navigation): invite and accept, change a role, disable
// behind a confirmation, bulk acts behind confirmations; and axe with every dialog open.

const PHONE = { width: 390, height: 844 };
const PASSWORD = "a long e2e passphrase";
const tag = () => randomUUID().slice(0, 8);

async function inDb<T>(fn: (db: ReturnType<typeof createDb>) => Promise<T>): Promise<T> {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

const updates = (page: Page) => page.getByRole("region", { name: "Updates" });

test("invite from the keyboard: no role is caught first, the dialog closes back to its button and reopens empty; the invitee accepts by keyboard", async ({
  login,
  page,
  browser,
}) => {
  const problems = watchConsole(page);
  const email = `invitee-${tag()}@e2e.test`;
  await login(E2E_ADMIN, page, "/dashboard/users");
  const invite = page.getByRole("button", { name: "Invite", exact: true });
  await tabTo(page, invite);
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Invite by email" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Email to invite")).toBeFocused();
  await page.keyboard.type(email);

  // "User" is ticked by default; untick it and try to send with no role.
  const user = dialog.getByRole("checkbox", { name: "User", exact: true });
  await expect(user).toBeChecked();
  await tabTo(page, user);
  await page.keyboard.press("Space");
  await expect(user).not.toBeChecked();
  await tabTo(page, dialog.getByRole("button", { name: "Send invitation" }));
  await page.keyboard.press("Enter");
  await expect(dialog.getByText("Choose at least one role.")).toBeVisible();
  await expect(dialog.getByRole("checkbox").first()).toBeFocused();
  expect(
    await inDb((db) =>
      db.selectFrom("user_token").select("id").where("data", "like", `%${email}%`).execute(),
    ),
  ).toHaveLength(0);

  // The second send, with a role, goes.
  const manager = dialog.getByRole("checkbox", { name: "Manager" });
  await tabTo(page, manager);
  await page.keyboard.press("Space");
  await tabTo(page, dialog.getByRole("button", { name: "Send invitation" }));
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(
    updates(page)
      .getByRole("status")
      .filter({ hasText: `Invitation sent to ${email}.` }),
  ).toBeVisible();
  // The dialog gives the focus back to its button; the toast only announces.
  await expect(invite).toBeFocused();
  await page.getByRole("link", { name: /^Invitations \(\d+\)$/ }).click();
  await expect(page.getByTestId("pending-invitations")).toContainText(`${email} · Manager`);
  await page.getByRole("link", { name: "People", exact: true }).click();

  // Reopened, the form is empty again with the default role.
  await tabTo(page, invite);
  await page.keyboard.press("Enter");
  await expect(dialog.getByLabel("Email to invite")).toHaveValue("");
  await expect(dialog.getByRole("checkbox", { name: "User", exact: true })).toBeChecked();
  await expect(dialog.getByRole("checkbox", { name: "Manager" })).not.toBeChecked();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(invite).toBeFocused();

  const link = await linkFromMail(email, "invite", "/accept-invite?token=");
  const guest = await browser.newContext();
  const invitee = await guest.newPage();
  const inviteeProblems = watchConsole(invitee);
  await invitee.goto(link);
  await tabTo(invitee, invitee.getByLabel("Name"));
  await invitee.keyboard.type("Keyboard Invitee");
  await tabTo(invitee, invitee.getByLabel("Password", { exact: true }));
  await invitee.keyboard.type(PASSWORD);
  await tabTo(invitee, invitee.getByLabel("Repeat the password"));
  await invitee.keyboard.type(PASSWORD);
  await invitee.keyboard.press("Enter");
  await expect(invitee.getByRole("heading", { name: "Welcome, Keyboard Invitee" })).toBeVisible();
  await expect(invitee.getByTestId("my-roles")).toContainText("Manager");
  await guest.close();
  expect(inviteeProblems).toEqual([]);
  expect(problems).toEqual([]);
});

test("page through the users by keyboard: Next and Previous keep the filter and the sort", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const token = `pager${tag()}`;
  const ts = new Date().toISOString();
  await inDb((db) =>
    db
      .insertInto("user")
      .values(
        Array.from({ length: 30 }, (_, i) => ({
          id: randomUUID(),
          name: `Pager ${String(i).padStart(2, "0")}`,
          email: `${token}-${i}@e2e.test`,
          created_at: ts,
          updated_at: ts,
        })),
      )
      .execute(),
  );
  await login(E2E_ADMIN, page, `/dashboard/users?q=${token}&sort=name&dir=asc`);
  const pages = page.getByRole("navigation", { name: "Users pages" });
  const names = page.getByRole("table", { name: "Users" }).getByRole("link", { name: /^Pager / });
  await expect(pages.getByTestId("page-range")).toHaveText("Showing 1–25 of 30 users");
  await expect(names.first()).toHaveText("Pager 00");
  await expect(pages.getByRole("link", { name: "Previous page" })).toHaveCount(0);

  await tabTo(page, pages.getByRole("link", { name: "Next page" }));
  await page.keyboard.press("Enter");
  await expect(pages.getByTestId("page-range")).toHaveText("Showing 26–30 of 30 users");
  await expect(names).toHaveText(["Pager 25", "Pager 26", "Pager 27", "Pager 28", "Pager 29"]);
  await expect(page).toHaveURL(new RegExp(`q=${token}.*after=`));
  await expect(pages.getByRole("link", { name: "Next page" })).toHaveCount(0);

  await tabTo(page, pages.getByRole("link", { name: "Previous page" }));
  await page.keyboard.press("Enter");
  await expect(pages.getByTestId("page-range")).toHaveText("Showing 1–25 of 30 users");
  await expect(names.first()).toHaveText("Pager 00");

  // A new sort starts from its own first page.
  await page.getByRole("link", { name: "Name" }).click();
  await expect(page).not.toHaveURL(/before=|after=/);
  await expect(names.first()).toHaveText("Pager 29");
  expect(problems).toEqual([]);
});

test("filters by keyboard: search applies as typed, a choice at once, each shows as a chip that removes it, Clear all resets", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const token = `chip${tag()}`;
  const ts = new Date().toISOString();
  await inDb((db) =>
    db
      .insertInto("user")
      .values(
        ["Ann", "Ben", "Cat"].map((name, i) => ({
          id: randomUUID(),
          name: `${token} ${name}`,
          email: `${token}-${i}@e2e.test`,
          status: i === 0 ? "disabled" : "active",
          created_at: ts,
          updated_at: ts,
        })),
      )
      .execute(),
  );
  await login(E2E_ADMIN, page, "/dashboard/users");
  const names = page
    .getByRole("table", { name: "Users" })
    .getByRole("link", { name: new RegExp(`^${token} `) });
  await expect(page.getByRole("button", { name: "Apply" })).toHaveCount(0);

  await tabTo(page, page.getByRole("searchbox", { name: "Search" }));
  await page.keyboard.type(token);
  // No Enter: the list follows once typing settles, and the address holds only what filters.
  await expect(names).toHaveCount(3);
  await expect(page).toHaveURL(new RegExp(`q=${token}`));
  await expect(page).not.toHaveURL(/role=|status=|verified=/);
  await expect(page.getByRole("searchbox", { name: "Search" })).toBeFocused();

  await tabTo(page, page.getByLabel("Status", { exact: true }));
  await page.keyboard.press("ArrowDown"); // Active
  await page.keyboard.press("ArrowDown"); // Disabled
  await expect(names).toHaveText([`${token} Ann`]);
  await expect(page).toHaveURL(/status=disabled/);
  const chips = page.getByTestId("filter-chips").getByRole("link");
  await expect(chips).toHaveText([`Search: ${token}`, "Status: Disabled", "Clear all"]);

  await tabTo(page, page.getByRole("link", { name: "Remove filter Status: Disabled" }));
  await page.keyboard.press("Enter");
  await expect(page).not.toHaveURL(/status=/);
  await expect(names).toHaveCount(3);
  await expect(page.getByLabel("Status", { exact: true })).toHaveValue("");
  await expect(chips).toHaveText([`Search: ${token}`, "Clear all"]);

  await tabTo(page, page.getByRole("link", { name: "Clear all" }));
  await page.keyboard.press("Enter");
  await expect(page).not.toHaveURL(/q=/);
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveValue("");
  await expect(page.getByTestId("filter-chips")).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("change a role on the user page by keyboard; the focus stays on Save while the toast announces", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const person = await createUser(["user"], `Role Keys ${tag()}`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  const manager = page.getByRole("checkbox", { name: "Manager" });
  await tabTo(page, manager);
  await page.keyboard.press("Space");
  await tabTo(page, page.getByRole("button", { name: "Save changes" }));
  await page.keyboard.press("Enter");
  await expect(updates(page).getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(page.getByRole("button", { name: "Save changes" })).toBeFocused();
  await expect(page.getByRole("checkbox", { name: "Manager" })).toBeChecked();
  const roles = await inDb((db) =>
    db
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select("role.name")
      .where("user_id", "=", person.id)
      .execute(),
  );
  expect(roles.map((r) => r.name).sort()).toEqual(["manager", "user"]);
  expect(problems).toEqual([]);
});

test("disable with confirmation: Escape cancels with focus back on the trigger; confirming disables and ends the sessions", async ({
  login,
  page,
  browser,
}) => {
  const problems = watchConsole(page);
  const person = await createUser(["user"], `Disable Keys ${tag()}`);
  const theirs = await browser.newContext();
  await login(person, await theirs.newPage());
  await theirs.close();

  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  await expect(page.getByTestId("user-status")).toHaveText("Active");
  const trigger = page.getByRole("button", { name: "Disable account" });
  await tabTo(page, trigger);
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("alertdialog", { name: `Disable ${person.name}'s account?` });
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText(`${person.name} (${person.email}) will be signed out of 1 session`);
  await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(confirm).toBeHidden();
  await expect(trigger).toBeFocused();
  const still = await inDb((db) =>
    db.selectFrom("user").select("status").where("id", "=", person.id).executeTakeFirstOrThrow(),
  );
  expect(still.status).toBe("active");

  await page.keyboard.press("Enter");
  await expect(confirm).toBeVisible();
  await tabTo(page, confirm.getByRole("button", { name: "Disable account" }));
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("user-status")).toHaveText("Disabled");
  await expect(
    updates(page).getByRole("status").filter({ hasText: "User disabled and signed out." }),
  ).toBeVisible();
  const after = await inDb(async (db) => ({
    user: await db.selectFrom("user").select("status").where("id", "=", person.id).executeTakeFirstOrThrow(),
    sessions: await db.selectFrom("session").select("id").where("user_id", "=", person.id).execute(),
  }));
  expect(after.user.status).toBe("disabled");
  expect(after.sessions).toHaveLength(0);
  expect(problems).toEqual([]);
});

test("bulk by keyboard: select all, disable behind a confirmation naming them, selection cleared; delete needs the count typed", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const group = `Bulk Keys ${tag()}`;
  const people = [];
  for (const n of ["Ann", "Ben", "Cat"]) people.push(await createUser(["user"], `${group} ${n}`));
  await login(E2E_ADMIN);
  await page.goto(`/dashboard/users?q=${encodeURIComponent(group)}&sort=name&dir=asc`);
  const selectAll = page.getByRole("checkbox", { name: "Select all users on this page" });
  await tabTo(page, selectAll);
  await page.keyboard.press("Space");
  const bar = page.getByTestId("bulk-bar");
  await expect(bar.getByText("3 selected")).toBeVisible();

  const disable = page.getByRole("button", { name: "Disable selected" });
  await tabTo(page, disable);
  await page.keyboard.press("Enter");
  const disableDialog = page.getByRole("alertdialog", { name: "Disable 3 users?" });
  // Each named with their email, so two people of one name are told apart.
  const [ann, ben, cat] = people.map((p) => `${p.name} (${p.email})`);
  await expect(disableDialog).toContainText(`${ann}, ${ben} and ${cat} will be signed out`);
  await tabTo(page, disableDialog.getByRole("button", { name: "Disable 3 users" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("table").getByText("Disabled")).toHaveCount(3);
  // Nothing stays selected, so no "Delete selected" is left armed over the changed rows: the bar
  // shows only while someone is ticked.
  await expect(bar).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Delete selected" })).toHaveCount(0);
  await expect(selectAll).not.toBeChecked();

  await tabTo(page, selectAll);
  await page.keyboard.press("Space");
  const del = page.getByRole("button", { name: "Delete selected" });
  await tabTo(page, del);
  await page.keyboard.press("Enter");
  const deleteDialog = page.getByRole("alertdialog", { name: "Delete 3 users?" });
  await expect(deleteDialog).toBeVisible();
  const go = deleteDialog.getByRole("button", { name: "Delete 3 users" });
  await expect(go).toBeDisabled();
  await tabTo(page, deleteDialog.getByLabel("To confirm, type"));
  await page.keyboard.type("delete 3");
  await expect(go).toBeDisabled();
  await page.keyboard.press("Enter"); // Enter in the box does not act
  await expect(deleteDialog).toBeVisible();
  await page.keyboard.type(" users");
  await expect(go).toBeEnabled();
  await tabTo(page, go);
  await page.keyboard.press("Enter");
  await expect(page.getByText("No users match these filters.")).toBeVisible();
  const left = await inDb((db) =>
    db.selectFrom("user").select("id").where("name", "like", `${group}%`).execute(),
  );
  expect(left).toHaveLength(0);
  expect(problems).toEqual([]);
});

test("bulk across pages by keyboard: select all 30 matching, change their roles in one dialog, export the selection", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const token = `across${tag()}`;
  const ts = new Date().toISOString();
  const ids = Array.from({ length: 30 }, () => randomUUID());
  await inDb((db) =>
    db
      .insertInto("user")
      .values(
        ids.map((id, i) => ({
          id,
          name: `Across ${String(i).padStart(2, "0")}`,
          email: `${token}-${i}@e2e.test`,
          created_at: ts,
          updated_at: ts,
        })),
      )
      .execute(),
  );
  await login(E2E_ADMIN, page, `/dashboard/users?q=${token}`);
  await expect(page.getByTestId("bulk-bar")).toHaveCount(0);
  const selectAll = page.getByRole("checkbox", { name: "Select all users on this page" });
  await tabTo(page, selectAll);
  await page.keyboard.press("Space");
  const bar = page.getByTestId("bulk-bar");
  await expect(bar.getByText("25 selected")).toBeVisible();
  await tabTo(page, bar.getByRole("button", { name: "Select all 30 matching" }));
  await page.keyboard.press("Enter");
  await expect(bar.getByText("30 selected")).toBeVisible();

  await tabTo(page, bar.getByRole("button", { name: "Change roles" }));
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Change the roles of 30 users?" });
  await expect(dialog).toContainText(
    "All 30 users matching the list's filters: choose how, and which roles.",
  );
  await expect(dialog.getByRole("radio", { name: "Add these roles" })).toBeChecked();
  // Confirming with no role chosen keeps the dialog open on the choice.
  await tabTo(page, dialog.getByRole("button", { name: "Change roles of 30 users" }));
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("group", { name: "Roles" }).getByRole("checkbox").first()).toBeFocused();
  await axe(page, "bulk change-roles dialog");
  await tabTo(page, dialog.getByRole("checkbox", { name: "Manager" }));
  await page.keyboard.press("Space");
  await tabTo(page, dialog.getByRole("button", { name: "Change roles of 30 users" }));
  await page.keyboard.press("Enter");
  await expect(updates(page)).toContainText("Changed the roles of 30 users.");
  const managers = await inDb((db) =>
    db
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select("user_role.user_id")
      .where("role.name", "=", "manager")
      .where("user_role.user_id", "in", ids)
      .execute(),
  );
  expect(managers).toHaveLength(30);

  // Two ticked by hand, exported: the file holds exactly those two.
  const boxes = page.getByRole("table", { name: "Users" }).getByRole("checkbox", { name: /^Select Across/ });
  await tabTo(page, boxes.nth(0));
  await page.keyboard.press("Space");
  await tabTo(page, boxes.nth(1));
  await page.keyboard.press("Space");
  await tabTo(page, bar.getByRole("button", { name: "Export" }));
  await page.keyboard.press("Enter");
  // A fast export's "finished" replaces its "started" toast (a stale toast is replaced): either is right.
  await expect(updates(page)).toContainText(/Export started|User export finished/);
  await page.getByRole("button", { name: /^Tasks, \d+ running$/ }).click();
  const item = page.getByRole("dialog", { name: "Task centre" }).getByTestId("task-item").first();
  const download = item.getByRole("link", { name: "Download CSV" });
  await expect(download).toBeVisible({ timeout: 20_000 });
  const csv = await (await page.request.get((await download.getAttribute("href"))!)).text();
  expect(csv.trim().split(/\r?\n/)).toHaveLength(3);
  expect(problems).toEqual([]);
});

test("delete one account: the confirmation asks for their email", async ({ login, page }) => {
  const problems = watchConsole(page);
  const person = await createUser(["user"], `Delete Keys ${tag()}`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  await tabTo(page, page.getByRole("button", { name: `Delete ${person.name}` }));
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Delete ${person.name}?` });
  const go = dialog.getByRole("button", { name: "Delete account" });
  await expect(go).toBeDisabled();
  await tabTo(page, dialog.getByLabel("To confirm, type their email address"));
  await page.keyboard.type(person.name);
  await expect(go).toBeDisabled();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type(person.email);
  await tabTo(page, go);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/users$/);
  await expect(updates(page).getByRole("status").filter({ hasText: "User deleted." })).toBeVisible();
  expect(
    await inDb((db) => db.selectFrom("user").select("id").where("id", "=", person.id).execute()),
  ).toHaveLength(0);
  expect(problems).toEqual([]);
});

const MAC_CHROME =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** An invitation's raw token, issued as inviteUser issues it (its mail is not the subject here). */
async function invitationFor(email: string) {
  process.env.DATABASE_URL = `file:${E2E_DB}`; // as the login fixture does, for the app's modules
  const { issueToken } = await import("../app/auth/tokens.server");
  const { db } = await import("../app/db.server");
  const role = await db()
    .selectFrom("role")
    .select("id")
    .where("name", "=", "user")
    .executeTakeFirstOrThrow();
  return issueToken({ kind: "invite", userId: null, data: { email, roleIds: [role.id], invitedBy: "e2e" } });
}

test("the user page in words: an accepted invitation, the browser of a session, the sign-in it made; disable and delete in a Danger zone at the end", async ({
  login,
  page,
  browser,
}) => {
  const problems = watchConsole(page);
  const email = `accepted-${tag()}@e2e.test`;
  const name = `Accepted Invitee ${tag()}`;
  const token = await invitationFor(email);
  const theirs = await browser.newContext({ userAgent: MAC_CHROME });
  const invitee = await theirs.newPage();
  await invitee.goto(`/accept-invite?token=${token}`);
  await tabTo(invitee, invitee.getByLabel("Name"));
  await invitee.keyboard.type(name);
  await tabTo(invitee, invitee.getByLabel("Password", { exact: true }));
  await invitee.keyboard.type(PASSWORD);
  await tabTo(invitee, invitee.getByLabel("Repeat the password"));
  await invitee.keyboard.type(PASSWORD);
  await invitee.keyboard.press("Enter");
  await expect(invitee.getByRole("heading", { name: `Welcome, ${name}` })).toBeVisible();
  await theirs.close();

  const { id } = await inDb((db) =>
    db.selectFrom("user").select("id").where("email", "=", email).executeTakeFirstOrThrow(),
  );
  await login(E2E_ADMIN, page, `/dashboard/users/${id}`);
  // Accepting signed them in, so the page says when rather than "never".
  await expect(page.getByTestId("last-sign-in")).toContainText("last sign-in");
  await expect(page.getByTestId("last-sign-in")).not.toContainText("never");
  await expect(page.getByTestId("user-sessions")).toContainText("Chrome on macOS");
  await expect(page.getByTestId("user-sessions")).not.toContainText("Mozilla");
  await expect(page.getByTestId("user-activity")).toContainText("Accepted an invitation");
  await expect(page.getByTestId("user-activity")).not.toContainText("auth.invite.accepted");

  // Everyday help first; the acts that hurt together in the Danger zone, the page's last section.
  const danger = page.getByRole("region", { name: "Danger zone" });
  await expect(page.getByRole("main").getByRole("heading", { level: 2 }).last()).toHaveText("Danger zone");
  await expect(danger.getByRole("button", { name: "Disable account" })).toBeVisible();
  await expect(danger.getByRole("button", { name: `Delete ${name}` })).toBeVisible();
  await expect(danger.getByRole("button", { name: "Send password reset link" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Send password reset link" })).toBeVisible();

  // By keyboard: from the reset link onwards, Disable comes before Delete and nothing else follows.
  await tabTo(page, page.getByRole("button", { name: "Send password reset link" }));
  await tabTo(page, danger.getByRole("button", { name: "Disable account" }));
  await page.keyboard.press("Tab");
  await expect(danger.getByRole("button", { name: `Delete ${name}` })).toBeFocused();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Delete ${name}?` });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(danger.getByRole("button", { name: `Delete ${name}` })).toBeFocused();
  await axe(page, "user page");
  expect(problems).toEqual([]);
});

test("phone: the users are a card list with status and roles, and nothing scrolls sideways", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const person = await createUser(["manager", "user"], `Phone Card ${tag()}`);
  await page.setViewportSize(PHONE);
  await login(E2E_ADMIN);
  await page.goto(`/dashboard/users?q=${encodeURIComponent(person.name)}`);
  await expect(page.getByRole("table")).toBeHidden();
  const card = page.getByRole("list", { name: "Users" }).getByRole("listitem");
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(person.name);
  await expect(card).toContainText(person.email);
  await expect(card).toContainText("Active");
  await expect(card).toContainText("Manager, User");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  expect(problems).toEqual([]);
});

async function axe(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(
    result.violations.map((v) => `${label}: ${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`),
  ).toEqual([]);
}

for (const viewport of ["desktop", "phone"] as const) {
  test(`axe: users list and user page with their dialogs open, ${viewport}, light and dark`, async ({
    login,
    page,
  }) => {
    const problems = watchConsole(page);
    await page.setViewportSize(viewport === "phone" ? PHONE : { width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    const person = await createUser(["user"], `Axe Person ${viewport} light ${tag()}`);
    await chooseTheme(page, "light");
    await login(E2E_ADMIN, page, "/dashboard/users");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    expect(await axeBothThemes(page, "users")).toEqual([]);

    await page.getByRole("button", { name: "Invite", exact: true }).click();
    await expect(page.getByRole("dialog", { name: "Invite by email" })).toBeVisible();
    expect(await axeBothThemes(page, "invite dialog")).toEqual([]);
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Create user" }).click();
    await expect(page.getByRole("dialog", { name: "Create a user" })).toBeVisible();
    expect(await axeBothThemes(page, "create dialog")).toEqual([]);
    await page.keyboard.press("Escape");
    await page.getByRole("link", { name: /^Invitations \(\d+\)$/ }).click();
    await expect(page).toHaveURL(/tab=invitations/);
    expect(await axeBothThemes(page, "invitations tab")).toEqual([]);

    await page.goto(`/dashboard/users?q=${encodeURIComponent(person.name)}`);
    await page.getByRole("checkbox", { name: `Select ${person.name}` }).check();
    await page.getByRole("button", { name: "Delete selected" }).click();
    await expect(page.getByRole("alertdialog", { name: "Delete 1 user?" })).toBeVisible();
    expect(await axeBothThemes(page, "bulk delete confirmation")).toEqual([]);
    await page.keyboard.press("Escape");

    await page.goto(`/dashboard/users/${person.id}`);
    expect(await axeBothThemes(page, "user page")).toEqual([]);
    await page.getByRole("button", { name: "Disable account" }).click();
    await expect(page.getByRole("alertdialog")).toBeVisible();
    expect(await axeBothThemes(page, "disable confirmation")).toEqual([]);
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: `Delete ${person.name}` }).click();
    await expect(page.getByRole("alertdialog")).toBeVisible();
    expect(await axeBothThemes(page, "delete confirmation")).toEqual([]);
    await page.keyboard.press("Escape");
    expect(problems).toEqual([]);
  });
}

test.describe("in German", () => {
  test.use({ locale: "de-DE" });

  test("the user page's acts from its header by keyboard; leaving someone without a role asks first; the toast says what changed", async ({
    login,
    page,
  }) => {
    const problems = watchConsole(page);
    const person = await createUser(["user", "manager"], `Kopfzeile ${tag()}`);
    await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
    const rolesOf = () =>
      inDb((db) => db.selectFrom("user_role").select("role_id").where("user_id", "=", person.id).execute());

    // Disable from the header: the menu's button, arrows to the act, its confirmation.
    const actions = page.getByRole("button", { name: `Aktionen für ${person.name}` });
    // One Tab past the way back to the list.
    await page.getByRole("main").getByRole("link").first().focus();
    await page.keyboard.press("Tab");
    await expect(actions).toBeFocused();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu");
    await expect(menu.getByRole("menuitem")).toContainText([
      "Link zum Zurücksetzen des Passworts senden",
      "Alle Aktivitäten ansehen",
      "Konto deaktivieren",
      "Konto löschen",
    ]);
    const disable = menu.getByRole("menuitem", { name: "Konto deaktivieren" });
    for (let i = 0; i < 8 && !(await disable.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    const confirm = page.getByRole("alertdialog", { name: `Konto von ${person.name} deaktivieren?` });
    await expect(confirm.getByRole("button", { name: "Abbrechen" })).toBeFocused();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect(page.getByTestId("user-status")).toHaveText("Deaktiviert");
    await expect(actions).toBeFocused();

    // Every role unticked: asked first; Escape saves nothing and gives Save its focus back.
    const roles = page.getByRole("group", { name: "Rollen" }).getByRole("checkbox", { checked: true });
    await expect(roles).toHaveCount(2);
    const group = page.getByRole("group", { name: "Rollen" });
    for (const name of await roles.evaluateAll((boxes) =>
      boxes.map((b) => b.closest("label")?.textContent),
    )) {
      await tabTo(page, group.getByRole("checkbox", { name: name!.trim(), exact: true }));
      await page.keyboard.press("Space");
    }
    const save = page.getByRole("button", { name: "Änderungen speichern" });
    await tabTo(page, save);
    await page.keyboard.press("Enter");
    const ask = page.getByRole("alertdialog", { name: `${person.name} ohne jede Rolle lassen?` });
    await expect(ask).toContainText(`Ohne Rolle kann ${person.name} das Dashboard nicht mehr öffnen`);
    await page.keyboard.press("Escape");
    await expect(ask).toBeHidden();
    await expect(save).toBeFocused();
    expect(await rolesOf()).toHaveLength(2);

    await page.keyboard.press("Enter");
    await tabTo(page, ask.getByRole("button", { name: "Ohne Rollen speichern" }));
    await page.keyboard.press("Enter");
    await expect(
      page.getByRole("status").filter({ hasText: /^Gespeichert\. Entzogene Rollen: .+, .+\./ }),
    ).toBeVisible();
    expect(await rolesOf()).toEqual([]);
    expect(problems).toEqual([]);
  });

  test("bulk on a phone: the bar stays at the foot of the screen; Change roles warns who is left without access; delete names who is skipped", async ({
    login,
    page,
  }) => {
    const problems = watchConsole(page);
    await page.setViewportSize(PHONE);
    const token = `Lx${tag()}`;
    await createUser(["user"], `${token} Eins`);
    await createUser(["user"], `${token} Zwei`);
    await login(E2E_ADMIN, page, `/dashboard/users?q=${token}`);
    await page.getByRole("checkbox", { name: "Alle Benutzer dieser Seite auswählen" }).check();
    const bar = page.getByTestId("bulk-bar");
    await expect(bar).toHaveCSS("position", "sticky");
    await bar.getByRole("button", { name: "Rollen ändern" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Rollen von 2 Benutzer ändern?" });
    await dialog.getByRole("radio", { name: "Diese Rollen entziehen" }).check();
    await dialog.getByRole("checkbox", { name: "Benutzer" }).check();
    await expect(dialog.getByRole("status")).toHaveText(
      "2 davon bleiben ohne jede Rolle und damit ohne Zugang zum Dashboard.",
    );
    await dialog.getByRole("radio", { name: "Diese Rollen hinzufügen" }).check();
    await expect(dialog.getByRole("status")).toHaveText("");
    await page.keyboard.press("Escape");
    await bar.getByRole("button", { name: "Auswahl löschen" }).click();
    await expect(page.getByRole("alertdialog")).toContainText("Ihr eigenes Konto bleibt unverändert");
    await page.keyboard.press("Escape");
    expect(problems).toEqual([]);
  });
});

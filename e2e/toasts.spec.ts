import { randomUUID } from "node:crypto";
import type { Locator, Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Toasts stand top right below the header, clear of the control in use, and wait while hovered or
// focused; a reversible act's toast offers Undo, which the server applies once (decision 038).

const PHONE = { width: 390, height: 844 };
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

async function inDb<T>(fn: (db: ReturnType<typeof createDb>) => Promise<T>): Promise<T> {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

const updates = (page: Page) => page.getByRole("region", { name: "Updates" });

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(locator: Locator): Promise<Box> {
  const b = await locator.boundingBox();
  expect(b).not.toBeNull();
  return b!;
}

async function focusedBox(page: Page): Promise<Box> {
  return page.evaluate(() => {
    const r = document.activeElement!.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
}

async function axe(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(TAGS).analyze();
  expect(
    result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    label,
  ).toEqual([]);
}

/** Saves the account form from its name field (Enter), so the field keeps the focus. */
async function saveName(page: Page, name: string) {
  const field = page.getByLabel("Name", { exact: true });
  await tabTo(page, field);
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type(name);
  await page.keyboard.press("Enter");
  const toast = updates(page).getByRole("status").filter({ hasText: "Saved." });
  await expect(toast).toBeVisible();
  return { field, toast };
}

test("a toast stands top right below the header, clear of the focused field, and waits while hovered", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const person = await createUser(["user"], `Toast ${randomUUID().slice(0, 6)}`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  const { toast } = await saveName(page, `${person.name} A`);
  const header = await box(page.locator("header").first());
  const at = await box(toast);
  const viewport = page.viewportSize()!;
  expect(at.y).toBeGreaterThanOrEqual(header.y + header.height);
  expect(at.y).toBeLessThan(header.y + header.height + 24);
  expect(viewport.width - (at.x + at.width)).toBeLessThan(32);
  await axe(page, "a toast shown");
  // Back to the form from the keyboard: the toast covers none of the fields in turn.
  for (const label of ["Name", "Email"]) {
    const field = page.getByLabel(label, { exact: true });
    await tabTo(page, field);
    await expect.poll(async () => overlaps(await box(toast), await focusedBox(page))).toBe(false);
  }

  // Hovered, it outlives its 6 s; let go, it fades.
  await toast.hover();
  await page.waitForTimeout(7500);
  await expect(toast).toBeVisible();
  await page.mouse.move(10, viewport.height - 10);
  await expect(toast).toBeHidden({ timeout: 8000 });
  expect(problems).toEqual([]);
});

test("on a phone, a toast moves out of the way of the field in use", async ({ login, page }) => {
  await page.setViewportSize(PHONE);
  const person = await createUser(["user"], `Phone ${randomUUID().slice(0, 6)}`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  const { field, toast } = await saveName(page, `${person.name} B`);
  // The field scrolled to just below the header, where the toasts stand, and focused.
  await field.evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().top - 70));
  await field.focus();
  await expect.poll(async () => overlaps(await box(toast), await box(field))).toBe(false);
  await expect(field).toBeFocused();
  await axe(page, "a toast on a phone");
});

test("a toast does not sit over an open dialog, on a phone", async ({ login, page }) => {
  await page.setViewportSize(PHONE);
  const person = await createUser(["user"], `Dialog ${randomUUID().slice(0, 6)}`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  const { toast } = await saveName(page, `${person.name} C`);
  await page.getByRole("button", { name: "Disable account" }).focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Disable ${person.name} C's account?` });
  await expect(dialog).toBeVisible();
  await expect(toast).toBeVisible();
  await expect.poll(async () => overlaps(await box(toast), await box(dialog))).toBe(false);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
});

test("two Undo toasts by keyboard only: the newest stands first and Ctrl+Z undoes it, focus staying put; the older one waits while focused", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const person = await createUser(["user", "manager"], `Undo ${randomUUID().slice(0, 6)}`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  await expect(page.getByTestId("user-status")).toHaveText("Active");
  await tabTo(page, page.getByRole("button", { name: "Disable account" }));
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("alertdialog", { name: `Disable ${person.name}'s account?` });
  await tabTo(page, confirm.getByRole("button", { name: "Disable account" }));
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("user-status")).toHaveText("Disabled");
  const disabled = updates(page).getByRole("status").filter({ hasText: "User disabled and signed out." });
  await expect(disabled.getByRole("button", { name: /^Undo/ })).toBeVisible();
  // The toast took no focus: it is on the control that turns the act around.
  await expect(page.getByRole("button", { name: "Enable account" })).toBeFocused();

  // Then a role taken away: its toast is the newest, first in the region.
  await tabTo(page, page.getByRole("checkbox", { name: "Manager" }));
  await page.keyboard.press("Space");
  const save = page.getByRole("button", { name: "Save changes" });
  await tabTo(page, save);
  await page.keyboard.press("Enter");
  const removed = updates(page).getByRole("status").filter({ hasText: "Roles removed: Manager." });
  await expect(removed).toBeVisible();
  await expect(updates(page).getByRole("status").first()).toContainText("Roles removed: Manager.");
  await expect(save).toBeFocused();
  await axe(page, "two toasts offering Undo");

  // Ctrl+Z undoes the newest, the role removal, and leaves the focus where it was.
  await page.keyboard.press("ControlOrMeta+z");
  await expect(
    updates(page)
      .getByRole("status")
      .filter({ hasText: /^Undone/ }),
  ).toBeVisible();
  await expect(page.getByRole("checkbox", { name: "Manager" })).toBeChecked();
  await expect(save).toBeFocused();
  const after = await inDb(async (db) => ({
    status: (
      await db.selectFrom("user").select("status").where("id", "=", person.id).executeTakeFirstOrThrow()
    ).status,
    roles: (
      await db
        .selectFrom("user_role")
        .innerJoin("role", "role.id", "user_role.role_id")
        .select("role.name")
        .where("user_role.user_id", "=", person.id)
        .orderBy("role.name")
        .execute()
    ).map((r) => r.name),
  }));
  expect(after).toEqual({ status: "disabled", roles: ["manager", "user"] });

  // The disable's own Undo, reached by Tab: its 10 s do not run while the focus is inside it.
  const undo = disabled.getByRole("button", { name: /^Undo/ });
  await tabTo(page, undo);
  await page.waitForTimeout(11_000);
  await expect(undo).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("user-status")).toHaveText("Active");
  await expect(
    updates(page).getByRole("status").filter({ hasText: "Undone: the user is active again." }),
  ).toBeVisible();
  const status = await inDb((db) =>
    db.selectFrom("user").select("status").where("id", "=", person.id).executeTakeFirstOrThrow(),
  );
  expect(status.status).toBe("active");

  await page.goto("/dashboard/logs");
  await expect(
    page.getByRole("row").filter({ hasText: "Undid disabling an account (enabled again)" }).filter({
      hasText: person.name,
    }),
  ).toBeVisible();
  expect(problems).toEqual([]);
});

test("remove from a team, then Undo: the member is back with their team role", async ({ login, page }) => {
  const problems = watchConsole(page);
  const person = await createUser(["user"], `Member ${randomUUID().slice(0, 6)}`);
  const teamId = randomUUID();
  const teamName = `Undo team ${teamId.slice(0, 6)}`;
  await inDb(async (db) => {
    const ts = new Date().toISOString();
    await db
      .insertInto("team")
      .values({ id: teamId, name: teamName, description: "", created_at: ts, updated_at: ts })
      .execute();
    await db
      .insertInto("team_member")
      .values({ team_id: teamId, user_id: person.id, team_role: "lead", created_at: ts })
      .execute();
  });
  await login(E2E_ADMIN, page, `/dashboard/teams/${teamId}`);
  await tabTo(page, page.getByRole("button", { name: `Actions for ${person.name}` }));
  await page.keyboard.press("Enter");
  await page.getByRole("menuitem", { name: "Remove from team" }).press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Remove ${person.name} from ${teamName}?` });
  await tabTo(page, dialog.getByRole("button", { name: "Remove from team" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText("No members yet.")).toBeVisible();
  const toast = updates(page).getByRole("status").filter({ hasText: "Member removed." });
  await tabTo(page, toast.getByRole("button", { name: /^Undo/ }));
  await page.keyboard.press("Enter");
  await expect(
    updates(page).getByRole("status").filter({ hasText: "Undone: the member is back in the team." }),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: `Actions for ${person.name}` })).toBeVisible();
  const members = await inDb((db) =>
    db.selectFrom("team_member").select(["user_id", "team_role"]).where("team_id", "=", teamId).execute(),
  );
  expect(members).toEqual([{ user_id: person.id, team_role: "lead" }]);
  expect(problems).toEqual([]);
});

test("Undo of something changed meanwhile says so, and changes nothing", async ({ login, page }) => {
  const problems = watchConsole(page, { allowStatus: [409] });
  const person = await createUser(["user"], `Changed ${randomUUID().slice(0, 6)}`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  await tabTo(page, page.getByRole("button", { name: "Disable account" }));
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("alertdialog", { name: `Disable ${person.name}'s account?` });
  await tabTo(page, confirm.getByRole("button", { name: "Disable account" }));
  await page.keyboard.press("Enter");
  const toast = updates(page).getByRole("status").filter({ hasText: "User disabled and signed out." });
  const undo = toast.getByRole("button", { name: /^Undo/ });
  await tabTo(page, undo);
  // Someone else enables them meanwhile, then an admin edits nothing else.
  await inDb((db) => db.updateTable("user").set({ status: "active" }).where("id", "=", person.id).execute());
  await page.keyboard.press("Enter");
  await expect(
    updates(page).getByRole("status").filter({ hasText: "Nothing to undo: it has changed since" }),
  ).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(person.name);
  const audits = await inDb((db) =>
    db
      .selectFrom("audit_log")
      .select("id")
      .where("action", "=", "user.disable.undone")
      .where("target_id", "=", person.id)
      .execute(),
  );
  expect(audits).toEqual([]);
  expect(problems).toEqual([]);
});

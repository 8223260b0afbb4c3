import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { axeBuilder, createUser, expect, test, watchConsole } from "./fixtures";

// The command palette by keyboard only: Ctrl+K finds a person and opens their page, "/" brings it
// back with that person under Recent, pages and actions follow the person's permissions, "?" lists
// the keys, and it speaks German to a German browser.

const palette = (page: Page) => page.getByRole("dialog", { name: /Go to or do|Wohin oder was tun/ });

async function axe(page: Page, label: string) {
  const result = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(
    result.violations.map((v) => `${label}: ${v.id} (${v.nodes.map((n) => n.target).join(" | ")})`),
  ).toEqual([]);
}

test("Ctrl+K finds a person by part of their email and opens their page; / reopens it with them under Recent", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const tag = `pal${randomUUID().slice(0, 6)}`;
  const person = await createUser(["user"], `Palette ${tag} Person`);
  const db = createDb(`file:${E2E_DB}`);
  try {
    await db
      .updateTable("user")
      .set({ email: `${tag}.person@e2e.test` })
      .where("id", "=", person.id)
      .execute();
  } finally {
    await db.destroy();
  }
  await login(E2E_ADMIN, page, "/dashboard");
  await page.keyboard.press("Control+k");
  const dialog = palette(page);
  await expect(dialog).toBeVisible();
  const input = dialog.getByRole("combobox");
  await expect(input).toBeFocused();
  await axe(page, "palette open");
  await page.keyboard.type(`${tag}.per`);
  const people = dialog.getByRole("group", { name: "People" });
  await expect(people.getByRole("option")).toHaveText([
    `Palette ${tag} Person${tag}.person@e2e.test`,
    `Search all users for “${tag}.per”`,
  ]);
  // The person is highlighted first, before the search of all users.
  await expect(people.getByRole("option").first()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(`/dashboard/users/${person.id}`);
  await expect(dialog).toHaveCount(0);

  // "/" anywhere but in a field opens it again; the person is first, under Recent.
  await page.locator("main h1").click();
  await page.keyboard.press("/");
  await expect(dialog.getByRole("group", { name: "Recent" }).getByRole("option").first()).toContainText(
    `Palette ${tag} Person`,
  );
  // Pages by name; an action opens its dialog on its page.
  await page.keyboard.type("audit");
  await expect(dialog.getByRole("group", { name: "Pages" }).getByRole("option")).toHaveText(["Audit Logs"]);
  await page.keyboard.press("Control+a");
  // The whole name: "invite" alone also finds people whose address holds it, whose results may
  // arrive after the action is listed and take Enter.
  await page.keyboard.type("invite a user");
  await expect(dialog.getByRole("option")).toHaveText(["Invite a user"]);
  // The one item left is highlighted, so Enter chooses it (it was not, now and then: command-palette.tsx).
  await expect(dialog.getByRole("option")).toHaveAttribute("aria-selected", "true");
  // And a screen reader is told which (the input's active descendant is that option).
  const optionId = await dialog.getByRole("option").getAttribute("id");
  await expect(dialog.getByRole("combobox")).toHaveAttribute("aria-activedescendant", optionId!);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/users\?new=invite/);
  await expect(page.getByRole("dialog", { name: "Invite by email" })).toBeVisible();
  await page.keyboard.press("Escape");

  // "?" lists the keys.
  await page.locator("main h1").click();
  await page.keyboard.press("?");
  const keys = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(keys).toContainText("Open the command palette");
  await expect(keys).toContainText("CtrlZUndo the newest change a toast offers to undo");
  await page.keyboard.press("Escape");
  await expect(keys).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("a plain user's palette offers only what they may open: no people, no admin pages or actions", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const tag = `plain${randomUUID().slice(0, 6)}`;
  await createUser(["admin"], `Someone ${tag}`);
  const plain = await createUser(["user"], `Plain ${tag}`);
  await login(plain, page, "/dashboard");
  await page.getByRole("button", { name: "Search and commands (Ctrl+K)" }).focus();
  await page.keyboard.press("Enter");
  const dialog = palette(page);
  await expect(dialog.getByRole("group", { name: "Pages" }).getByRole("option")).toHaveText([
    "Dashboard",
    "Settings",
  ]);
  await expect(dialog.getByRole("group", { name: "Actions" }).getByRole("option")).toHaveText([
    "Keyboard shortcuts",
  ]);
  await page.keyboard.type(tag);
  await expect(dialog.getByText("Nothing matches.")).toBeVisible();
  await expect(dialog.getByRole("group", { name: "People" })).toHaveCount(0);
  expect(problems).toEqual([]);
});

test("everyday words find what they mean; a person's page offers its acts; past the few people shown, a search of all", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const tag = `words${randomUUID().slice(0, 6)}`;
  const person = await createUser(["user"], `Words ${tag} Person`);
  await login(E2E_ADMIN, page, `/dashboard/users/${person.id}`);
  const dialog = palette(page);
  const input = dialog.getByRole("combobox");
  const ask = async (words: string) => {
    if (!(await dialog.isVisible())) await page.keyboard.press("Control+k");
    await input.fill(words);
  };

  // The acts of the page on screen, as its header menu offers them.
  await page.keyboard.press("Control+k");
  await page.keyboard.type("disable");
  const here = dialog.getByRole("group", { name: "On this page" });
  await expect(here.getByRole("option").first()).toHaveText(`Disable account · ${person.name}`);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("alertdialog", { name: `Disable ${person.name}'s account?` })).toBeVisible();
  await page.keyboard.press("Escape");

  const expected: [string, string, string][] = [
    ["role", "Pages", "Access Control"],
    ["report", "Actions", "Generate a report"],
    ["webhook", "Settings", "Webhooks"],
    ["scim", "Settings", "Directory provisioning"],
    ["token", "Settings", "API tokens"],
    ["task", "Pages", "Your tasks"],
    ["language", "Settings", "Profile"],
    ["sign out", "Actions", "Sign out"],
    ["view", "Pages", "Users"],
    ["import", "Pages", "Import users"],
    ["dark", "Actions", "Switch to the dark theme"],
  ];
  for (const [words, group, first] of expected) {
    await ask(words);
    await expect(dialog.getByRole("group", { name: group }).getByRole("option").first(), words).toHaveText(
      first,
    );
  }
  await page.keyboard.press("Enter");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");

  await ask(tag);
  const everyone = dialog.getByRole("option", { name: `Search all users for “${tag}”` });
  await expect(everyone).toBeVisible();
  await everyone.click();
  await expect(page).toHaveURL(`/dashboard/users?q=${tag}`);
  await expect(page.getByRole("link", { name: person.name }).first()).toBeVisible();
  expect(problems).toEqual([]);
});

test.describe("in German", () => {
  test.use({ locale: "de-DE" });
  test("the palette speaks German: headings, actions, the empty result", async ({ login, page }) => {
    const problems = watchConsole(page);
    await login(E2E_ADMIN, page, "/dashboard");
    await page.keyboard.press("Control+k");
    const dialog = palette(page);
    await expect(dialog.getByRole("combobox")).toHaveAttribute(
      "placeholder",
      "Seiten, Personen, Teams und Aktionen suchen",
    );
    await expect(dialog.getByRole("group", { name: "Aktionen" }).getByRole("option").first()).toHaveText(
      "Benutzer einladen",
    );
    await page.keyboard.type("rolle");
    await expect(dialog.getByRole("group", { name: "Seiten" }).getByRole("option").first()).toHaveText(
      "Zugriffskontrolle",
    );
    await dialog.getByRole("combobox").fill("dunkel");
    await expect(dialog.getByRole("group", { name: "Aktionen" }).getByRole("option").first()).toHaveText(
      "Zum dunklen Design wechseln",
    );
    await dialog.getByRole("combobox").fill("zzzz-nichts");
    await expect(dialog.getByText("Keine Treffer.")).toBeVisible();
    await axe(page, "palette in German");
    await page.keyboard.press("Escape");
    await page.locator("main h1").click();
    await page.keyboard.press("?");
    await expect(page.getByRole("dialog", { name: "Tastenkürzel" })).toContainText(
      "Die neueste Änderung rückgängig machen, die eine Meldung anbietet",
    );
    expect(problems).toEqual([]);
  });
});

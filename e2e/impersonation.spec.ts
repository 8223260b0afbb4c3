import { OWN_ACCOUNT_INTENTS } from "../app/auth/viewing-as";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { axeBuilder, createUser, expect, test, watchConsole } from "./fixtures";

// "View as": a super admin opens a user, views the dashboard as them (banner, their sidebar), finds
// the password form locked, and stops, back as themselves. All by keyboard; axe finds nothing.

test("view as a user, password locked, stop", async ({ login, page }) => {
  const problems = watchConsole(page);
  const target = await createUser(["user"], "Viewed Person");
  await login(E2E_ADMIN);
  const sidebar = page.getByRole("navigation", { name: "Main" });
  await expect(sidebar.getByRole("link", { name: "Users" })).toBeVisible();

  await page.goto(`/dashboard/users/${target.id}`);
  const viewAs = page.getByRole("button", { name: "View as Viewed Person" });
  await viewAs.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);

  const banner = page.getByRole("region", { name: "Viewing as another person" });
  await expect(banner).toContainText("viewing as Viewed Person");
  await expect(banner).toContainText(E2E_ADMIN.email);
  await expect(banner).toContainText(/(30|29) minutes left/);
  // Their sidebar: a plain user has no Users page.
  await expect(sidebar.getByRole("link", { name: "Settings" })).toBeVisible();
  await expect(sidebar.getByRole("link", { name: "Users" })).toHaveCount(0);
  const found = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(found.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(" | ")}`)).toEqual([]);

  // The banner is on every page, and the password form is locked before anyone types, saying why.
  await page.goto("/dashboard/settings/security");
  await expect(banner).toBeVisible();
  const password = page.locator("section", { has: page.getByRole("heading", { name: "Password" }) });
  await expect(password.getByText(`Not available while viewing as Viewed Person`)).toBeVisible();
  for (const id of ["currentPassword", "newPassword", "confirm"])
    await expect(page.locator(`#settings-password-${id}`)).toBeDisabled();
  await expect(page.getByRole("button", { name: "Change password" })).toBeDisabled();

  // Stop, by keyboard: back on the user's page as the super admin.
  const stop = banner.getByRole("button", { name: "Stop viewing as Viewed Person" });
  await stop.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/dashboard/users/${target.id}$`));
  await expect(banner).toHaveCount(0);
  await expect(sidebar.getByRole("link", { name: "Users" })).toBeVisible();
  await expect(
    page.getByRole("status").filter({ hasText: "You stopped viewing as Viewed Person." }),
  ).toBeVisible();
  expect(problems).toEqual([]);
});

// docs/decisions/021-impersonation.md: the gate (a password an admin set) is the person's, not the viewer's.
test("view as someone who must change their password: the dashboard, the banner, stop", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const target = await createUser(["user"], "Temporary Password");
  const db = createDb(`file:${E2E_DB}`);
  try {
    await db.updateTable("user").set({ must_change_password: 1 }).where("id", "=", target.id).execute();
  } finally {
    await db.destroy();
  }
  await login(E2E_ADMIN, page, `/dashboard/users/${target.id}`);
  await page.getByRole("button", { name: "View as Temporary Password" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  const banner = page.getByRole("region", { name: "Viewing as another person" });
  await expect(banner).toContainText("viewing as Temporary Password");
  await page.reload();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(banner).toBeVisible();
  await page.goto("/dashboard/settings");
  await expect(banner).toBeVisible();

  await banner.getByRole("button", { name: "Stop viewing as Temporary Password" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/users/${target.id}$`));
  await expect(banner).toHaveCount(0);
  expect(problems).toEqual([]);
});

/** Every form control naming an intent on the page: the intent, and whether a lock covers it. */
function intentControls(page: import("@playwright/test").Page) {
  return page.locator("[name=intent]").evaluateAll((els) =>
    els.map((el) => ({
      intent: (el as HTMLInputElement).value,
      locked: el.closest("fieldset[disabled]") !== null,
    })),
  );
}

test("viewing as an admin: every form only they may send is locked, with the reason, before anyone types; the rest stays open", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const target = await createUser(["admin"], "Jane Doe");
  await login(E2E_ADMIN, page, `/dashboard/users/${target.id}`);
  await page.getByRole("button", { name: "View as Jane Doe" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  const reason = "Not available while viewing as Jane Doe: only Jane Doe can do this, in their own session.";

  // Settings: each page of their menu, every form on it locked exactly when its page's list names it.
  await page.goto("/dashboard/settings");
  const menu = page.getByRole("navigation", { name: "Settings pages" });
  const sections = await menu
    .getByRole("link")
    .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  expect(sections).toEqual(
    expect.arrayContaining(["/dashboard/settings/security", "/dashboard/settings/system"]),
  );
  const lists = OWN_ACCOUNT_INTENTS as Record<string, readonly string[]>;
  const controls: { intent: string; locked: boolean }[] = [];
  for (const path of sections) {
    await page.goto(path);
    const listed = new Set<string>(lists[path] ?? []);
    const here = await intentControls(page);
    for (const c of here) expect(c.locked, `${path}: ${c.intent}`).toBe(listed.has(c.intent));
    controls.push(...here);
  }
  // What an admin's Settings shows of the lists, and what stays open beside it.
  expect(new Set(controls.filter((c) => c.locked).map((c) => c.intent))).toEqual(
    new Set(["language", "email", "password", "sign-in-alerts", "create-api-token", "two-factor-start"]),
  );
  expect(controls.filter((c) => !c.locked).map((c) => c.intent)).toEqual(
    expect.arrayContaining(["profile", "system", "invite"]),
  );
  await page.goto("/dashboard/settings/security");
  await expect(page.getByRole("main").getByText(reason).first()).toBeVisible();
  await expect(page.locator("#settings-password-currentPassword")).toBeDisabled();
  // By keyboard: from the page's link in the menu, Tab never lands on a locked control.
  const securityLink = menu.getByRole("link", { name: "Password and authentication" });
  await expect(securityLink).toHaveAttribute("aria-current", "page");
  await securityLink.focus();
  // Through the rest of the menu and the whole page, until focus leaves the main area (further
  // on, it wraps round to the header, whose tooltips open on focus).
  let inMain = 0;
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const where = await page.evaluate(() => ({
      locked: document.activeElement?.closest("fieldset[disabled]") !== null,
      inMain: document.activeElement?.closest("main") != null,
    }));
    expect(where.locked).toBe(false);
    if (!where.inMain) break;
    inMain++;
  }
  expect(inMain).toBeGreaterThan(0); // the menu's next links at least
  expect((await axeBuilder(page).analyze()).violations).toEqual([]);

  // The name is not account security: it stays open and saves.
  await menu.getByRole("link", { name: "Profile" }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings\/profile$/);
  const name = page.getByLabel("Name", { exact: true });
  await expect(name).toBeEnabled();
  await name.fill("Jane Q. Doe");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Your name was saved." })).toBeVisible();
  await expect(page.getByRole("main").getByLabel("Language")).toBeDisabled();

  // Users → Import: the preview is open, the import itself locked.
  await page.goto("/dashboard/users/import");
  await page.getByLabel("CSV file").setInputFiles({
    name: "people.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(
      `name,email,roles,teams\nViewed Import,viewed-import-${target.id.slice(0, 8)}@example.com,,\n`,
    ),
  });
  await page.getByRole("button", { name: "Check the file" }).click();
  const run = page.getByRole("button", { name: /^Import 1 / });
  await expect(run).toBeDisabled();
  await expect(page.getByText("Not available while viewing as Jane Q. Doe").first()).toBeVisible();

  // Their own record: every form on it locked, under one note.
  await page.goto(`/dashboard/users/${target.id}`);
  await expect(page.getByText("Not available while viewing as Jane Q. Doe")).toHaveCount(1);
  const own = await intentControls(page);
  expect(own.length).toBeGreaterThan(0);
  expect(own.filter((c) => !c.locked)).toEqual([]);
  await expect(page.getByLabel("Name", { exact: true })).toBeDisabled();
  expect(problems).toEqual([]);
});

test("the lock says why in the reader's language (German)", async ({ login, browser }) => {
  const target = await createUser(["manager"], "Grete Beispiel");
  const german = await browser.newContext({ locale: "de-DE" });
  const page = await german.newPage();
  await login(E2E_ADMIN, page, `/dashboard/users/${target.id}`);
  await page.getByRole("button", { name: "Als Grete Beispiel ansehen" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/dashboard/settings/security");
  await expect(
    page
      .getByRole("main")
      .getByText(
        "Nicht verfügbar, solange Sie die Anwendung als Grete Beispiel sehen: Das kann nur Grete Beispiel selbst, in der eigenen Sitzung.",
      )
      .first(),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Passwort ändern" })).toBeDisabled();
  await german.close();
});

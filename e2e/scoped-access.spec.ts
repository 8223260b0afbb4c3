import { createDb } from "../db/connection";
import { createTeam, grant } from "../test/support/teams";
import { E2E_DB } from "./env";
import { axeBothThemes, createUser, expect, test, watchConsole } from "./fixtures";

// A team lead's day with a role granted within Sales (decision 044): the list shows Sales' people,
// a Marketing member's page is "not found", the Access card says why and grants within Sales; the
// same card in German; axe with the "why" open.

async function salesAndMarketing(stamp: string) {
  const lead = await createUser(["user"], `Lead ${stamp}`);
  const sam = await createUser(["user"], `Sam ${stamp}`);
  const mia = await createUser(["user"], `Mia ${stamp}`);
  const db = createDb(`file:${E2E_DB}`);
  try {
    const sales = await createTeam(db, `Sales ${stamp}`, [lead.id, sam.id]);
    await createTeam(db, `Marketing ${stamp}`, [mia.id]);
    await grant(db, lead.id, "admin", sales);
  } finally {
    await db.destroy();
  }
  return { lead, sam, mia };
}

test("a lead with admin within Sales: Sales' people only, a Marketing member is not found, grants within Sales", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page, { allowStatus: [404] });
  const stamp = `${Date.now()}`;
  const { lead, sam, mia } = await salesAndMarketing(stamp);
  await login(lead, page, `/dashboard/users?q=${stamp}`);

  const nav = page.getByRole("navigation").first();
  await expect(nav.getByRole("link", { name: "Users" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Audit Logs" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Access Control" })).toHaveCount(0);
  const table = page.getByRole("table");
  await expect(table.getByRole("link", { name: `Sam ${stamp}` })).toBeVisible();
  await expect(table.getByRole("link", { name: `Lead ${stamp}` })).toBeVisible();
  await expect(table.getByText(`Mia ${stamp}`)).toHaveCount(0);

  await page.goto(`/dashboard/users/${mia.id}`);
  await expect(page.getByText("This user does not exist.")).toBeVisible();

  await page.goto(`/dashboard/users/${sam.id}`);
  // Each role says what it gives where it is chosen.
  await expect(page.getByRole("checkbox", { name: /^Manager/ })).toHaveAccessibleDescription(
    "Can: Access Dashboard, View Users, View Teams, Manage Teams.",
  );
  const card = page
    .locator("section")
    .filter({ has: page.getByRole("heading", { name: "Access", exact: true }) });
  await expect(card.getByText("No role is granted within a team.")).toBeVisible();
  await card.getByLabel("Role", { exact: true }).selectOption({ label: "Manager" });
  await card.getByLabel("Team", { exact: true }).selectOption({ label: `Sales ${stamp}` });
  // Before it is sent, what it would give, and where.
  await expect(card.getByTestId("grant-preview")).toContainText(
    `1 person gains “Manage Teams”: Sam ${stamp} (Sales ${stamp})`,
  );
  await card.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Granted Manager in Sales ${stamp}.` }),
  ).toBeVisible();
  await expect(card.getByTestId("team-grants")).toContainText(`Manager in Sales ${stamp}`);

  // Why Sam may now manage teams: through the grant within Sales.
  const why = card.getByTestId("access-permissions").locator("details", { hasText: "Manage Teams" });
  await why.locator("summary").focus();
  await page.keyboard.press("Enter");
  await expect(why).toContainText(`Manager in Sales ${stamp}`);
  expect(await axeBothThemes(page, "access card")).toEqual([]);
  expect(problems).toEqual([]);
});

test.describe("in German", () => {
  test.use({ locale: "de-DE" });

  test("the Access card and its reasons", async ({ login, page }) => {
    const stamp = `${Date.now()}`;
    const { lead } = await salesAndMarketing(stamp);
    await login(lead, page, `/dashboard/users/${lead.id}`);
    await expect(page.getByRole("heading", { name: "Zugriff" })).toBeVisible();
    const settings = page
      .getByTestId("access-permissions")
      .locator("details")
      .filter({ hasText: "nicht vorhanden" })
      .first();
    await settings.locator("summary").click();
    await expect(settings).toContainText("Warum");
    await expect(page.getByText("Rollen innerhalb von Teams")).toBeVisible();
  });
});

test("the role matrix previews who gains a permission before the save", async ({ login, page }) => {
  const problems = watchConsole(page);
  const stamp = `${Date.now()}`;
  const guest = await createUser(["guest"], `Gus ${stamp}`);
  const admin = await createUser(["admin"], `Ada ${stamp}`);
  await login(admin, page, "/dashboard/access");
  await page.getByRole("checkbox", { name: "Guest: Manage Teams" }).check();
  const preview = page.getByTestId("matrix-preview");
  await expect(preview).toContainText(/gains? “Manage Teams”:/);
  await expect(preview).toContainText(guest.name);
  expect(await axeBothThemes(page, "matrix preview")).toEqual([]);
  await page.getByRole("button", { name: "Discard" }).click();
  await expect(page.getByRole("checkbox", { name: "Guest: Manage Teams" })).not.toBeChecked();
  expect(problems).toEqual([]);
});

test("a role's description shows where roles are chosen, and the list filters by several roles", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const stamp = `${Date.now()}`;
  await createUser(["guest"], `Gia ${stamp}`);
  await createUser(["manager"], `Max ${stamp}`);
  await createUser(["user"], `Uma ${stamp}`);
  const admin = await createUser(["admin"], `Ada ${stamp}`);
  await login(admin, page, "/dashboard/access");
  await page.getByLabel("Description of guest").fill(`Visitors ${stamp}`);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Permissions saved for 1 role." })).toBeVisible();

  await page.goto(`/dashboard/users?q=${stamp}`);
  const names = page.getByRole("table", { name: "Users" }).getByRole("link", { name: new RegExp(stamp) });
  await expect(names).toHaveCount(4);
  await page.getByTestId("role-filter").locator("summary").click();
  await page.getByRole("checkbox", { name: "Guest", exact: true }).check();
  await expect(names).toHaveCount(1);
  await page.getByRole("checkbox", { name: "Manager", exact: true }).check();
  await expect(names).toHaveCount(2);
  await expect(page).toHaveURL(/role=guest&role=manager|role=manager&role=guest/);
  await expect(page.getByTestId("filter-chips")).toContainText("Role: Guest, Manager");
  // Escape closes the choices onto their button, as a menu would.
  await page.keyboard.press("Escape");
  await expect(page.getByRole("checkbox", { name: "Guest", exact: true })).toBeHidden();
  await expect(page.getByTestId("role-filter").locator("summary")).toBeFocused();

  await page
    .getByRole("button", { name: /^Invite/ })
    .first()
    .click();
  await expect(page.getByRole("checkbox", { name: /^Guest/ })).toHaveAccessibleDescription(
    `Visitors ${stamp} Can: nothing yet.`,
  );
  expect(problems).toEqual([]);
});

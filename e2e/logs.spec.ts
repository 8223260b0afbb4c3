import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { csvCells } from "../test/support/csv";
import { E2E_DB } from "./env";
import { axeBothThemes, chooseTheme, createUser, expect, test, watchConsole } from "./fixtures";

// The audit log by keyboard: a partial actor name narrows the list as it is typed, the export
// takes the filters as they stand in the form (a second one typed but not yet applied included)
// and holds exactly the rows the list shows; each applied filter is a chip, and "Clear all" empties
// both. On a phone the entries are cards and nothing scrolls sideways.

const PHONE = { width: 390, height: 844 };

async function seedRows(actor: { id: string; email: string }, targetId: string) {
  const db = createDb(`file:${E2E_DB}`);
  const base = Date.now() - 60_000;
  const row = (i: number, over: Record<string, string | null>) => ({
    id: randomUUID(),
    actor_id: actor.id,
    actor_email: actor.email,
    action: "user.update",
    target_type: null,
    target_id: null,
    details: null,
    ip: "203.0.113.5",
    user_agent: "e2e",
    created_at: new Date(base - i * 1000).toISOString(),
    ...over,
  });
  try {
    await db
      .insertInto("audit_log")
      .values([
        row(1, { target_type: "user", target_id: targetId }),
        row(2, { target_type: "user", target_id: targetId, action: "user.disable" }),
        row(3, { target_type: "user", target_id: targetId, action: "user.enable" }),
        row(4, { action: "auth.login.succeeded" }),
        row(5, { action: "auth.logout" }),
      ])
      .execute();
  } finally {
    await db.destroy();
  }
}

async function tabUntil(page: Page, name: string | RegExp, max = 25) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? (el.getAttribute("aria-label") ?? el.textContent ?? "").trim() : "";
    });
    if (typeof name === "string" ? focused === name : name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

test("filter the log by part of an actor's name, export exactly what is filtered, clear", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const token = `Qx${Date.now().toString(36)}`;
  const actor = await createUser(["admin"], `Auditor ${token} Person`);
  const target = await createUser(["user"], `Target ${token} Subject`);
  await seedRows(actor, target.id);
  await login(actor, page, "/dashboard/logs");
  const rows = page.getByTestId("audit-row");

  const actorField = page.getByLabel("Actor (name or email contains)");
  await actorField.focus();
  await page.keyboard.type(token.toLowerCase());
  await expect(page).toHaveURL(new RegExp(`actor=${token.toLowerCase()}`));
  await expect(rows).toHaveCount(5);
  await expect(rows.first()).toContainText("Changed a user");
  await expect(rows.first()).toContainText(`Auditor ${token} Person`);
  await expect(rows.first().getByRole("link", { name: `Target ${token} Subject` })).toHaveAttribute(
    "href",
    `/dashboard/users/${target.id}`,
  );
  await expect(actorField).toBeFocused();
  // Applied as typed: no Filter button to press, and the filter shows as a chip.
  await expect(page.getByRole("button", { name: "Filter", exact: true })).toHaveCount(0);
  await expect(page.getByRole("link", { name: `Remove filter Actor: ${token.toLowerCase()}` })).toBeVisible();

  // A second filter, typed and left at once for the Export button: not applied yet.
  await page.keyboard.press("Tab"); // the action
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Target (name contains)")).toBeFocused();
  await page.keyboard.type(`${token} subj`);
  await tabUntil(page, "Export CSV");
  await page.keyboard.press("Enter");
  // A fast export's "finished" replaces its "started" toast (a stale toast is replaced): either is right.
  await expect(
    page.getByRole("status").filter({ hasText: /Export started|export.* finished/ }),
  ).toBeVisible();

  await expect(rows).toHaveCount(3);
  const listed = await rows
    .locator("time")
    .evaluateAll((times) => times.map((t) => t.getAttribute("datetime")));

  const tasks = page.getByRole("button", { name: /^Tasks, \d+ running$/ });
  await tasks.focus();
  await page.keyboard.press("Enter");
  const item = page.getByRole("dialog", { name: "Task centre" }).getByTestId("task-item").first();
  const download = item.getByRole("link", { name: "Download CSV" });
  await expect(download).toBeVisible({ timeout: 20_000 });
  const csv = await (await page.request.get((await download.getAttribute("href"))!)).text();
  const lines = csv.trim().split(/\r?\n/).slice(1);
  expect(lines.map((l) => csvCells(l)[0])).toEqual(listed);
  expect(lines.map((l) => csvCells(l)[1])).toEqual(["user.update", "user.disable", "user.enable"]);
  await page.keyboard.press("Escape");

  await page.getByLabel("Target (name contains)").focus();
  await expect(page.getByTestId("filter-chips").getByRole("link")).toHaveText([
    `Actor: ${token.toLowerCase()}`,
    `Target: ${token} subj`,
    "Clear all",
  ]);
  await tabUntil(page, "Clear all");
  await page.keyboard.press("Enter");
  await expect(page).not.toHaveURL(/actor=/);
  await expect(page.getByLabel("Actor (name or email contains)")).toHaveValue("");
  await expect(page.getByLabel("Target (name contains)")).toHaveValue("");
  await expect(page.getByTestId("filter-chips")).toHaveCount(0);
  expect(await rows.count()).toBeGreaterThan(3);
  expect(problems).toEqual([]);
});

test("page through a long log by keyboard: Older and Newer entries, the range shown", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const actor = await createUser(["admin"], `Pager ${randomUUID().slice(0, 8)}`);
  const db = createDb(`file:${E2E_DB}`);
  const base = Date.now() - 3_600_000;
  try {
    // 60 entries, ten of them at one instant: a page boundary falls among equal times.
    const rows = Array.from({ length: 60 }, (_, i) => ({
      id: randomUUID(),
      actor_id: actor.id,
      actor_email: actor.email,
      action: "user.update",
      target_type: null,
      target_id: null,
      details: null,
      ip: null,
      user_agent: "e2e",
      created_at: new Date(base - Math.min(i, 45) * 1000).toISOString(),
    }));
    await db.insertInto("audit_log").values(rows).execute();
  } finally {
    await db.destroy();
  }
  await login(actor);
  await page.goto(`/dashboard/logs?actor=${encodeURIComponent(actor.email)}`);
  const pages = page.getByRole("navigation", { name: "Audit log pages" });
  const rows = page.getByTestId("audit-row");
  await expect(pages.getByTestId("page-range")).toHaveText("Showing 1–50");
  await expect(rows).toHaveCount(50);
  await expect(pages.getByRole("link", { name: "Newer entries" })).toHaveCount(0);
  const firstPage = await rows.locator("time").evaluateAll((t) => t.map((e) => e.getAttribute("datetime")));

  await pages.getByRole("link", { name: "Older entries" }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/after=/);
  await expect(pages.getByTestId("page-range")).toHaveText("Showing 51–60");
  await expect(rows).toHaveCount(10);
  await expect(pages.getByRole("link", { name: "Older entries" })).toHaveCount(0);

  await pages.getByRole("link", { name: "Newer entries" }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/before=/);
  await expect(pages.getByTestId("page-range")).toHaveText("Showing 1–50");
  expect(await rows.locator("time").evaluateAll((t) => t.map((e) => e.getAttribute("datetime")))).toEqual(
    firstPage,
  );
  // A link from before the cursors (?page=3) opens the newest page rather than failing.
  await page.goto(`/dashboard/logs?actor=${encodeURIComponent(actor.email)}&page=3`);
  await expect(pages.getByTestId("page-range")).toHaveText("Showing 1–50");
  expect(problems).toEqual([]);
});

for (const viewport of ["desktop", "phone"] as const) {
  test(`axe: the audit log, ${viewport}, light and dark`, async ({ login, page }) => {
    const problems = watchConsole(page);
    if (viewport === "phone") await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: "light" });
    const actor = await createUser(["admin"], `Axe Auditor ${viewport} light`);
    await seedRows(actor, actor.id);
    await chooseTheme(page, "light");
    await login(actor, page, "/dashboard/logs");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    const entry = page.getByTestId(viewport === "phone" ? "audit-card" : "audit-row").first();
    await entry.locator("summary").click();
    expect(await axeBothThemes(page, "audit log with an entry open")).toEqual([]);
    expect(problems).toEqual([]);
  });
}

test("phone: the log is a list of cards, a chip removes its filter, nothing scrolls sideways", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await page.setViewportSize(PHONE);
  const token = `Ph${Date.now().toString(36)}`;
  const actor = await createUser(["admin"], `Phone ${token} Auditor`);
  const target = await createUser(["user"], `Phone ${token} Target`);
  await seedRows(actor, target.id);
  await login(actor, page, `/dashboard/logs?actor=${token}&action=user.disable`);
  const cards = page.getByTestId("audit-card");
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText("Disabled an account");
  await expect(cards.first()).toContainText(`Phone ${token} Auditor`);
  await expect(cards.first().getByRole("link", { name: `Phone ${token} Target` })).toBeVisible();
  await expect(page.getByTestId("audit-row").first()).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

  const actionChip = page.getByRole("link", { name: "Remove filter Action: Disabled an account" });
  await actionChip.focus();
  await page.keyboard.press("Enter");
  await expect(page).not.toHaveURL(/action=/);
  await expect(page).toHaveURL(new RegExp(`actor=${token}`));
  await expect(cards).toHaveCount(5);
  // The filters wait behind one button, so the entries start on the first screen.
  const filters = page.getByRole("button", { name: "Filters (1)" });
  expect((await filters.boundingBox())!.height).toBeLessThan(60);
  expect((await cards.first().boundingBox())!.y).toBeLessThan(PHONE.height);
  await filters.click();
  const sheet = page.getByRole("dialog", { name: "Filters" });
  await expect(sheet.getByLabel("Action", { exact: true })).toHaveValue("");
  await expect(sheet.getByLabel("Actor (name or email contains)")).toHaveValue(token);
  await page.keyboard.press("Escape");
  await expect(filters).toBeFocused();
  expect(problems).toEqual([]);
});

test.describe("in German", () => {
  test.use({ locale: "de-DE" });

  test("one person's trail by keyboard: from their page, last 7 days, exported with names", async ({
    login,
    page,
  }) => {
    const problems = watchConsole(page);
    const token = `Pt${Date.now().toString(36)}`;
    const admin = await createUser(["admin"], `Prüferin ${token}`);
    const person = await createUser(["user"], `Person ${token}`);
    // A namesake: a text filter on the name mixed both trails.
    const namesake = await createUser(["user"], `Person ${token}`);
    await seedRows(person, admin.id);
    await seedRows(namesake, admin.id);
    await seedRows(admin, person.id);
    // One change in detail, said in German: labels, role names, yes and none.
    const db = createDb(`file:${E2E_DB}`);
    try {
      const role = await db
        .selectFrom("role")
        .select("id")
        .where("name", "=", "manager")
        .executeTakeFirstOrThrow();
      await db
        .insertInto("audit_log")
        .values({
          id: randomUUID(),
          actor_id: admin.id,
          actor_email: admin.email,
          action: "user.update",
          target_type: "user",
          target_id: person.id,
          details: JSON.stringify({
            before: { roles: [role.id] },
            after: { roles: [] },
            reauthenticated: true,
          }),
          created_at: new Date(Date.now() - 30_000).toISOString(),
        })
        .execute();
    } finally {
      await db.destroy();
    }
    await login(admin, page, `/dashboard/users/${person.id}`);

    const all = page.getByRole("link", { name: "Alle Aktivitäten ansehen" });
    await all.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`person=${person.id}`));
    await expect(
      page.getByRole("link", { name: `Filter Person: Person ${token} (${person.email}) entfernen` }),
    ).toBeVisible();
    // Five rows they did and four done to them; none of the namesake's.
    const rows = page.getByTestId("audit-row");
    await expect(rows).toHaveCount(9);
    const detailed = rows.first();
    await expect(detailed).toContainText("Rollen geändert");
    await detailed.locator("summary").click();
    await expect(detailed.getByRole("row", { name: "Rollen Manager keine" })).toBeVisible();
    await expect(detailed).toContainText("Zuvor erneut angemeldet");
    await expect(detailed.locator("dd")).toHaveText(["ja"]);
    await expect(rows.filter({ hasText: namesake.email })).toHaveCount(0);

    const period = page.getByLabel("Zeitraum", { exact: true });
    await period.focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await expect(page).toHaveURL(/within=7d/);
    await expect(page.getByRole("link", { name: "Filter Zeitraum: Letzte 7 Tage entfernen" })).toBeVisible();
    await expect(rows).toHaveCount(9);

    await tabUntil(page, "CSV exportieren");
    await page.keyboard.press("Enter");
    const tasks = page.getByRole("button", { name: /^Aufgaben/ });
    await tasks.focus();
    await page.keyboard.press("Enter");
    const item = page.getByRole("dialog").getByTestId("task-item").first();
    await expect(item).toContainText("eine Person · letzte 7 Tage");
    const download = item.getByRole("link", { name: "CSV herunterladen" });
    await expect(download).toBeVisible({ timeout: 20_000 });
    const csv = await (await page.request.get((await download.getAttribute("href"))!)).text();
    const [header, ...lines] = csv.trim().split(/\r?\n/);
    const columns = csvCells(header!);
    const cell = (line: string, name: string) => csvCells(line)[columns.indexOf(name)];
    expect(lines).toHaveLength(9);
    expect(lines.filter((l) => cell(l, "actor") === person.email).map((l) => cell(l, "actor_name"))).toEqual(
      Array(5).fill(`Person ${token}`),
    );
    expect(
      lines.filter((l) => cell(l, "target_id") === person.id).map((l) => cell(l, "target_name")),
    ).toEqual(Array(4).fill(`Person ${token}`));
    expect(problems).toEqual([]);
  });
});

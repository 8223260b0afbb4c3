import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import { axeBothThemes, chooseTheme, createUser, expect, test, watchConsole } from "./fixtures";

// Every page a person can reach, for each seeded role, on desktop and phone, light and dark: axe
// finds nothing, and the page logs no console error and no failed request. The pages come from
// the role's own sidebar (so a new menu item is covered without editing this file) and the role's
// own Settings menu, plus the detail pages, a refusal and a missing page. Open dialogs and menus are checked by the specs of
// their pages (shell.spec.ts for the header). Each page is scanned in light, then its colours in
// dark (axeBothThemes). The super admin sees every control, so that role gets both viewports; the
// other roles see subsets of the same pages (what only they see is read-only forms and refusals,
// the same in either viewport) and get one viewport each, desktop and phone taking turns, where
// they had both until the suite had to fit CI's ten minutes (docs/testing.md).

const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
const THEMES = ["light", "dark"] as const;
const ROLES = ["super_admin", "admin", "manager", "user", "guest"] as const;
const PUBLIC_PAGES = [
  "/login",
  "/register",
  "/forgot-password",
  "/reset-password?token=not-a-real-token",
  "/resend-verification",
  "/check-inbox",
  "/accept-invite?token=not-a-real-token",
  "/no-such-page",
];

async function setTheme(page: Page, theme: (typeof THEMES)[number]) {
  await page.emulateMedia({ colorScheme: theme });
  await chooseTheme(page, theme);
}

/** A team with a member, so the team page has rows to show. */
async function teamWithMember(userId: string) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    const id = randomUUID();
    const ts = new Date().toISOString();
    await db
      .insertInto("team")
      .values({
        id,
        name: `A11y team ${id.slice(0, 6)}`,
        description: "Checked by axe",
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    await db
      .insertInto("team_member")
      .values({ team_id: id, user_id: userId, team_role: "lead", created_at: ts })
      .execute();
    return id;
  } finally {
    await db.destroy();
  }
}

/** A finished export (with its download link and filters) and a failed report, for the task history. */
async function tasksFor(email: string) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    const { id: userId } = await db
      .selectFrom("user")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    const ts = new Date().toISOString();
    const exportId = randomUUID();
    await db
      .insertInto("task")
      .values([
        {
          id: exportId,
          type: "audit.export",
          status: "completed",
          user_id: userId,
          payload: JSON.stringify({ action: "auth.login.succeeded", format: "csv" }),
          result: JSON.stringify({
            rows: 3,
            filename: "audit.csv",
            downloadUrl: `/api/tasks/${exportId}/download`,
          }),
          created_at: ts,
          updated_at: ts,
          completed_at: ts,
        },
        {
          id: randomUUID(),
          type: "report.generate",
          status: "failed",
          user_id: userId,
          payload: null,
          result: JSON.stringify({ error: "The report failed, as asked: this was a simulated failure." }),
          created_at: ts,
          updated_at: ts,
          completed_at: ts,
        },
      ])
      .execute();
  } finally {
    await db.destroy();
  }
}

/** The dashboard pages the signed-in person's sidebar offers, plus the detail pages under them. */
async function pagesOf(page: Page, teamId: string, userId: string) {
  await page.setViewportSize(VIEWPORTS.desktop);
  await page.goto("/dashboard");
  const hrefs = await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link")
    .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  const pages = new Set(["/dashboard", ...hrefs.filter((h) => h.startsWith("/dashboard"))]);
  if (pages.has("/dashboard/users")) pages.add(`/dashboard/users/${userId}`);
  if (pages.has("/dashboard/teams")) pages.add(`/dashboard/teams/${teamId}`);
  // Settings is a menu of pages, its own address a redirect to the first: every page the person's
  // menu offers (the workspace's only to those who may open them).
  if (pages.delete("/dashboard/settings")) {
    await page.goto("/dashboard/settings");
    const settings = await page
      .getByRole("navigation", { name: "Settings pages" })
      .getByRole("link")
      .evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
    expect(settings.length).toBeGreaterThanOrEqual(3);
    for (const path of settings) pages.add(path);
  }
  // One's own task history (the user menu and the task centre link it; a guest is refused).
  pages.add("/dashboard/tasks");
  // The API's reference (linked from Settings → API tokens).
  pages.add("/dashboard/api-reference");
  // A refusal inside the shell, and a missing page.
  if (!pages.has("/dashboard/logs")) pages.add("/dashboard/logs");
  pages.add("/dashboard/no-such-page");
  return [...pages];
}

/** The theme the page is served in; axeBothThemes then checks the other's colours. */
type Run = { viewport: keyof typeof VIEWPORTS; theme: (typeof THEMES)[number] };
const desktop: Run = { viewport: "desktop", theme: "light" };
const phone: Run = { viewport: "phone", theme: "dark" };
const RUNS: Record<(typeof ROLES)[number], Run[]> = {
  super_admin: [desktop, phone],
  admin: [desktop],
  manager: [phone],
  user: [desktop],
  guest: [phone],
};
for (const role of ROLES) {
  for (const run of RUNS[role]) {
    const { viewport, theme } = run;
    const size = VIEWPORTS[viewport];
    test(`axe and console: every page of a ${role}, ${viewport}, served ${theme}, both themes`, async ({
      page,
      login,
    }) => {
      test.setTimeout(180_000);
      const person =
        role === "super_admin"
          ? { ...E2E_ADMIN, id: "" }
          : await createUser([role], `A11y ${role} ${viewport} ${theme}`);
      const subject = await createUser(["user"], `A11y subject ${role} ${viewport} ${theme}`);
      const teamId = await teamWithMember(subject.id);
      await tasksFor(person.email);
      await login(person);
      await setTheme(page, theme);
      const pages = await pagesOf(page, teamId, subject.id);
      await page.setViewportSize(size);

      const found: string[] = [];
      for (const path of pages) {
        // 403 and 404 are the expected answers of the refusal and the missing page.
        const problems = watchConsole(page, { allowStatus: [403, 404] });
        const response = await page.goto(path);
        expect(response, path).not.toBeNull();
        await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
        await expect(page).toHaveTitle(/\S · \S/);
        found.push(...(await axeBothThemes(page, path)));
        await page.waitForLoadState("networkidle");
        found.push(...problems.map((p) => `${path}: ${p}`));
        page.removeAllListeners("console");
        page.removeAllListeners("pageerror");
        page.removeAllListeners("requestfailed");
        page.removeAllListeners("response");
      }
      expect(found).toEqual([]);
    });
  }
}

for (const [viewport, size] of Object.entries(VIEWPORTS)) {
  test(`axe and console: the public pages, ${viewport}, light and dark`, async ({ page }) => {
    await page.setViewportSize(size);
    await setTheme(page, "light");
    const found: string[] = [];
    for (const path of PUBLIC_PAGES) {
      const problems = watchConsole(page, { allowStatus: [400, 404] });
      await page.goto(path);
      await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
      found.push(...(await axeBothThemes(page, path)));
      await page.waitForLoadState("networkidle");
      found.push(...problems.map((p) => `${path}: ${p}`));
      page.removeAllListeners("console");
      page.removeAllListeners("pageerror");
      page.removeAllListeners("requestfailed");
      page.removeAllListeners("response");
    }
    expect(found).toEqual([]);
  });
}

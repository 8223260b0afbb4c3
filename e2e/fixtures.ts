import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Locator, type Page, type Response } from "@playwright/test";
import { RouterContextProvider } from "react-router";
import { createDb } from "../db/connection";
import { createUser as createUserIn } from "../test/support/users";
import { E2E_BASE_URL, E2E_DB, E2E_PASSWORD, E2E_SESSION_SECRET } from "./env";
import { startE2eServer } from "./server";

/** A verified user with the given roles, written straight into the e2e database (test/support/users.ts). */
export async function createUser(roles: string[], name = `E2E ${roles.join("+") || "nobody"}`) {
  const db = createDb(`file:${E2E_DB}`);
  try {
    return await createUserIn(db, { roles, name, password: E2E_PASSWORD });
  } finally {
    await db.destroy();
  }
}

/** Signs in through the real form and waits for the dashboard (or the no-access page). */
export async function signIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/dashboard/);
}

/**
 * Collects every console error, uncaught exception and failed request (a network failure, or an
 * answer of 400 or more) so a test can assert there were none. `allowStatus` lists statuses the
 * test expects (e.g. the 403 of a page it may not open); the browser's console line for them is
 * allowed too. Requests the browser itself cancelled (navigation away, a closed event stream) are
 * not failures.
 */
export function watchConsole(page: Page, { allowStatus = [] as number[] } = {}): string[] {
  const problems: string[] = [];
  const expected = (text: string) => allowStatus.some((s) => text.includes(`status of ${s}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && !expected(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`exception: ${err.message}`));
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText ?? "";
    if (reason !== "net::ERR_ABORTED")
      problems.push(`failed: ${request.method()} ${request.url()} ${reason}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400 && !allowStatus.includes(response.status()))
      problems.push(`status ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return problems;
}

/**
 * A session for the user, made the way sign-in makes it (app/auth/session.server.ts startSession,
 * a row in the e2e database), as the cookie the server expects. Only the sign-in specs need the form.
 */
async function sessionCookieFor(email: string) {
  const baseURL = E2E_BASE_URL;
  // This worker opens the e2e database and signs with the e2e server's secret (e2e/server.ts).
  process.env.DATABASE_URL = `file:${E2E_DB}`;
  process.env.SESSION_SECRET = E2E_SESSION_SECRET;
  process.env.BASE_URL = baseURL;
  const { db } = await import("../app/db.server");
  const { startSession } = await import("../app/auth/session.server");
  const { requestInfoContext } = await import("../app/http/request-info.server");
  const user = await db()
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirstOrThrow();
  const [setCookie] = await startSession(user.id, {
    request: new Request(baseURL, { headers: { "User-Agent": "Playwright login fixture" } }),
    context: new RouterContextProvider(new Map([[requestInfoContext, { ip: "127.0.0.1" }]])),
  });
  const pair = setCookie!.split(";")[0]!;
  const at = pair.indexOf("=");
  return { name: pair.slice(0, at), value: pair.slice(at + 1), url: baseURL };
}

export type Login = (user: { email: string }, page?: Page, path?: string) => Promise<void>;

/**
 * Resolves once the page has hydrated: the app marks `<html data-hydrated>` when the widgets that
 * wait for scripts (app/components/use-hydrated.ts: the header's menus) have their machinery, so a
 * click lands on a control that can act (app/entry.client.tsx).
 */
export async function waitForHydration(page: Page, timeout?: number) {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout });
}

/** After a document load: waits for hydration if the page is one of the app's, with its scripts. */
async function hydrated(page: Page, response: Response | null) {
  if (!response?.url().startsWith(E2E_BASE_URL)) return response;
  if (!(response.headers()["content-type"] ?? "").startsWith("text/html")) return response;
  if (await page.locator('script[type="module"]').count()) await waitForHydration(page);
  return response;
}

export const test = base.extend<{ login: Login }, { e2eServer: undefined }>({
  // This worker's own server and database (e2e/env.ts), for all of its tests.
  e2eServer: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
    async ({}, use) => {
      const stop = await startE2eServer(process.env.BUILD_DIR ?? "build");
      await use(undefined);
      await stop();
    },
    { scope: "worker", auto: true, timeout: 120_000 },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
  baseURL: async ({}, use) => use(E2E_BASE_URL),
  // `page.goto()` and `page.reload()` return once the page has hydrated, as a person waits for a
  // page to be ready: no click is lost to a button whose handler is not attached yet.
  page: async ({ page, javaScriptEnabled }, use) => {
    if (javaScriptEnabled !== false) {
      const goto = page.goto.bind(page);
      const reload = page.reload.bind(page);
      page.goto = async (url, options) => hydrated(page, await goto(url, options));
      page.reload = async (options) => hydrated(page, await reload(options));
    }
    await use(page);
  },
  /**
   * `login(user)` signs `user` in on the test's page (or the page given, for a second browser
   * context) without the form, and opens the dashboard, where signIn() would have landed, or the
   * `path` given (one page load rather than two).
   */
  login: async ({ page }, use) => {
    await use(async (user, target = page, path = "/dashboard") => {
      await target.context().addCookies([await sessionCookieFor(user.email)]);
      await target.goto(path);
      await waitForHydration(target);
    });
  },
});
/**
 * axe on `page`, run in the page itself (axe.run). The builder's default mode, made for cross-origin
 * frames (the app has no frames), opens and closes a tab of its own for every check, and that was
 * most of the suite's browser CPU; the rules and their results are the same.
 */
export function axeBuilder(page: Page) {
  // Every check reads only the violations. axe otherwise builds a selector and an HTML excerpt for
  // each passing and inapplicable node too, the tail of a scan on a page with a long table.
  return new AxeBuilder({ page }).setLegacyMode().options({ resultTypes: ["violations"] });
}

const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
/** The axe rules (of WCAG_TAGS) whose answer depends on colours; every other one reads the DOM. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];
type Theme = "light" | "dark";

/**
 * axe over the page in both themes, as lines `label: rule (targets)`: every rule in the theme the
 * page has, then the colour rules in the other, and the page put back. The theme is only colours
 * (html[data-theme] picks the palette in app/app.css; no element shows or hides by theme), so the
 * second theme's other rules would find the same, at half again the cost of a scan: this replaced
 * a second test per viewport that repeated the whole walk in the other theme.
 */
export async function axeBothThemes(page: Page, label: string, tags = WCAG_TAGS): Promise<string[]> {
  const lines = (violations: { id: string; nodes: { target: unknown }[] }[], suffix: string) =>
    violations.map((v) => `${label}: ${v.id}${suffix} (${v.nodes.map((n) => n.target).join(" | ")})`);
  const found = lines((await axeBuilder(page).withTags(tags).analyze()).violations, "");
  const theme = (await page.locator("html").getAttribute("data-theme")) as Theme | "system";
  const other: Theme = theme === "dark" ? "light" : "dark";
  await paint(page, other);
  found.push(...lines((await axeBuilder(page).withRules(COLOUR_RULES).analyze()).violations, ` in ${other}`));
  await paint(page, theme);
  return found;
}

/** The page in `theme` as the server renders it for that cookie, its colour transitions run out. */
async function paint(page: Page, theme: Theme | "system") {
  await page.evaluate(async (t) => {
    document.documentElement.dataset.theme = t;
    // A spinner's animation never finishes; the colour transitions it waits for do.
    const ending = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity);
    await Promise.all(ending.map((a) => a.finished.catch(() => undefined)));
  }, theme);
}

/**
 * Presses Tab or Shift+Tab until `target` has focus: how a keyboard user gets there. Without `back`
 * it goes the way a person would, backwards when the focus is already past the target (tabbing
 * forward round the whole page cost the axe walks up to 200 presses each on a busy machine).
 * Fails after `max` presses. The element is found once and asked after each press (found again
 * only if a render replaced it): finding it by role on a large page, at every press, was most of the
 * time of the keyboard specs.
 */
export async function tabTo(
  page: Page,
  target: Locator,
  { back, max = 200 }: { back?: boolean; max?: number } = {},
) {
  let element = await target.elementHandle();
  back ??= await element.evaluate((el) => {
    const active = document.activeElement;
    if (!active || active === document.body || active.contains(el) || el.contains(active)) return false;
    return Boolean(active.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING);
  });
  for (let i = 0; i < max; i++) {
    const focused = await element.evaluate((el) => (el.isConnected ? el === document.activeElement : null));
    if (focused === null) element = await target.elementHandle();
    else if (focused) return;
    else await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  await expect(target).toBeFocused();
}

/**
 * Resolves once `page` holds an open event stream (GET /api/events answered): from then on the
 * server delivers it every event (app/events/stream.server.ts subscribes before it answers). Call
 * before the page loads.
 */
export async function eventStreamOpened(page: Page) {
  await page.waitForResponse((r) => new URL(r.url()).pathname === "/api/events" && r.ok());
}

/**
 * The theme cookie as POST /theme sets it (react-router's createCookie: JSON, base64). Set directly
 * rather than posted, so an idle keep-alive socket the server just closed cannot reset the request;
 * /theme itself is tested in shell.spec.ts.
 */
export async function chooseTheme(page: Page, theme: "light" | "dark" | "system") {
  const value = Buffer.from(JSON.stringify(theme)).toString("base64");
  await page.context().addCookies([{ name: "theme", value, url: E2E_BASE_URL }]);
}

export { expect };

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_NAME } from "../app/config";
import { type AppServer, startApp } from "./app-server";
import { createUser, setupDatabase, signedIn } from "./helpers";

// The whole document as the browser gets it: titles, and the no-access page inside the shell.
let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
}, 60_000);
afterAll(() => app?.close());

const titleOf = (html: string) => html.match(/<title>([^<]*)<\/title>/)?.[1];

describe("dashboard shell documents", () => {
  it("a page its user may not open: 403, the sidebar, what is missing and who grants it", async () => {
    const { cookie } = await signedIn(["user"]);
    const response = await app.fetch("/dashboard/users", { cookie });
    expect(response.status).toBe(403);
    const html = await response.text();
    expect(titleOf(html)).toBe(`No access · ${APP_NAME}`);
    expect(html).toContain('data-testid="sidebar"');
    expect(html).toContain("&quot;View Users&quot; permission (user.read)");
    expect(html).toContain("(roles.manage), can grant it.");
  });

  it("the header's menus arrive as plain, labelled buttons; their Radix machinery mounts after hydration", async () => {
    const { cookie } = await signedIn(["user"]);
    const response = await app.fetch("/dashboard", { cookie });
    expect(response.status).toBe(200);
    const html = await response.text();
    const header = html.slice(html.indexOf("<header"), html.indexOf("</header>"));
    for (const label of ["Open menu", "Tasks, 0 running", "Notifications, 0 unread", "Theme: System"])
      expect(header).toContain(`aria-label="${label}"`);
    expect(header).toContain(", user menu");
    expect(header.match(/aria-haspopup="(menu|dialog)"/g)).toHaveLength(5);
    // Radix's triggers carry data-state and an aria-controls of their own; none is rendered yet.
    expect(header).not.toContain("data-state=");
    expect(header).not.toContain("aria-controls=");
  });

  it("an account without dashboard access: 403 titled, from the gate, before any loader", async () => {
    const { cookie } = await signedIn(["guest"]);
    const response = await app.fetch("/dashboard", { cookie });
    expect(response.status).toBe(403);
    const html = await response.text();
    expect(titleOf(html)).toBe(`No access · ${APP_NAME}`);
    expect(html).toContain("(dashboard.access)");
  });

  it("the gate's refusal keeps the person's theme and runs its scripts under the page's nonce", async () => {
    const { cookie } = await signedIn(["guest"]);
    // The theme cookie as /theme sets it: a JSON string, base64 (react-router createCookie).
    const theme = `theme=${Buffer.from(JSON.stringify("dark")).toString("base64")}`;
    const response = await app.fetch("/dashboard", { cookie: `${cookie}; ${theme}` });
    expect(response.status).toBe(403);
    const html = await response.text();
    expect(html).toContain('data-theme="dark"');
    const nonce = response.headers.get("Content-Security-Policy")?.match(/'nonce-([^']+)'/)?.[1];
    expect(nonce).toBeTruthy();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  });

  it("titles pages, the user page by the user's name, and a missing page", async () => {
    const admin = await signedIn(["super_admin"]);
    const users = await app.fetch("/dashboard/users", { cookie: admin.cookie });
    expect(titleOf(await users.text())).toBe(`Users · ${APP_NAME}`);
    const ada = await createUser({ name: "Ada Lovelace", roles: ["user"] });
    const page = await app.fetch(`/dashboard/users/${ada.id}`, { cookie: admin.cookie });
    expect(titleOf(await page.text())).toBe(`Ada Lovelace · ${APP_NAME}`);
    const missing = await app.fetch("/dashboard/nope", { cookie: admin.cookie });
    expect(missing.status).toBe(404);
    expect(titleOf(await missing.text())).toBe(`Page not found · ${APP_NAME}`);
    const login = await app.fetch("/login");
    expect(titleOf(await login.text())).toBe(`Sign in · ${APP_NAME}`);
  });
});

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { E2E_BASE_PORT, E2E_MAX_WORKERS } from "./env";
import { waitForHydration, watchConsole } from "./fixtures";

// The README's first command, `npm run dev`, as on a fresh clone (README "Run it"): no .env, no
// database and an empty Vite dependency cache (node_modules/.vite), in a temporary folder of its
// own (ENV_FILE, DATABASE_URL, VITE_CACHE_DIR), so the developer's .env and data/app.db are never
// touched. The first page views must become interactive without the optimizer re-bundling and
// reloading (which answered "504 Outdated Optimize Dep" for react-i18next, Radix, zod…, so the
// page stayed server-rendered): sign in, open a dialog and a header menu, no console error, no
// failed request. Every other spec runs against the production build.

// The first port after the workers' servers (e2e/env.ts).
const DEV_PORT = Number(process.env.E2E_DEV_PORT ?? E2E_BASE_PORT + 2 * E2E_MAX_WORKERS);
const base = `http://localhost:${DEV_PORT}`;
const root = new URL("..", import.meta.url).pathname;

let dir: string;
let child: ChildProcess | undefined;
let output = "";

/** The dev server's process group (npm, tsx, esbuild), stopped as a whole. */
function stop(): Promise<void> {
  const running = child;
  child = undefined;
  if (!running?.pid || running.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      try {
        process.kill(-running.pid!, "SIGKILL");
      } catch {}
      resolve();
    }, 15_000);
    running.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    try {
      process.kill(-running.pid!, "SIGTERM");
    } catch {
      clearTimeout(force);
      resolve();
    }
  });
}

/** Starts `npm run dev` and resolves with the super admin's password it prints once. */
function startDevServer(): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), "dashboard-dev-smoke-"));
  // Only what a developer's shell has: nothing of the e2e server's or a spec's environment.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    ENV_FILE: join(dir, ".env"),
    DATABASE_URL: `file:${join(dir, "app.db")}`,
    VITE_CACHE_DIR: join(dir, "vite"),
    PORT: String(DEV_PORT),
    HOST: "127.0.0.1",
  };
  child = spawn("npm", ["run", "dev"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let password: string | undefined;
    const timer = setTimeout(() => reject(new Error(`npm run dev did not start:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      password ??= /with password: (\S+)/.exec(output)?.[1];
      if (/Dashboard running at/.test(output)) {
        clearTimeout(timer);
        if (password) resolve(password);
        else reject(new Error(`npm run dev printed no generated password:\n${output}`));
      }
    };
    child!.stdout!.on("data", read);
    child!.stderr!.on("data", read);
    child!.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run dev exited with ${code}:\n${output}`));
    });
  });
}

test.afterAll(async () => {
  await stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("npm run dev on a fresh clone: sign in, a dialog and a header menu work on the first run, nothing fails", async ({
  browser,
}, testInfo) => {
  test.setTimeout(240_000);
  try {
    const password = await startDevServer();
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    const problems = watchConsole(page);

    await page.goto("/login");
    // As a person waits for the first page to be ready: a click before hydration finished was once
    // lost on a loaded machine (the form stayed filled on /login). Hydrating at all is the check.
    await waitForHydration(page, 60_000);
    await page.getByLabel("Email").fill("admin@localhost.test");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard/, { timeout: 60_000 });
    // A fresh install says that mail reaches nobody, and guides its super admin (issue 36).
    await expect(page.getByTestId("mail-off-banner")).toContainText("Email is not being delivered");
    await expect(page.getByRole("region", { name: "Set up your workspace" })).toContainText("Deliver email");

    // A header menu: Radix's, so it opens only once the page has hydrated (a click before does nothing).
    await waitForHydration(page, 60_000);
    const menu = page.getByRole("menu", { name: "User menu" });
    await page.getByRole("button", { name: /user menu/i }).click();
    await expect(menu).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();

    // A dialog, on a page reached by client-side navigation.
    await page.getByRole("link", { name: "Users", exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard\/users$/);
    const dialog = page.getByRole("dialog", { name: "Invite by email" });
    await page.getByRole("button", { name: "Invite", exact: true }).click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();

    expect(problems).toEqual([]);
    // The optimizer bundled everything up front: no late discovery, no error, no reload.
    expect(output).not.toMatch(
      /\[ERROR\]|new dependencies optimized|optimized dependencies changed|reloading/,
    );
    // Requests are short lines in development (app/http/dev-request-log.server.ts), assets left out.
    expect(output).toMatch(/^GET \/login 200 \d+ ms$/m);
    expect(output).toMatch(/^GET \/dashboard\/users\.data 200 \d+ ms$/m);
    expect(output).not.toMatch(/"url":|GET \/app\/|GET \/node_modules\/|GET \/@vite\//);
    await context.close();
  } finally {
    await stop();
    await testInfo.attach("npm run dev output", { body: output, contentType: "text/plain" });
  }
});

import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { E2E_MAX_WORKERS } from "./e2e/env";
import { chromiumPath } from "./scripts/chromium";

// Chromium's old headless shell (Debian: apt-get install chromium-headless-shell), when installed and
// no CHROMIUM_PATH names another: the same engine without the full browser's work, a quarter less
// CPU over the suite than /usr/bin/chromium.
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const executablePath =
  !process.env.CHROMIUM_PATH && existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : chromiumPath();

// Runs against the production build. Each worker starts its own server on its own fresh database
// (the worker fixture in e2e/fixtures.ts, e2e/server.ts; ports in e2e/env.ts), so the tests of all
// files run in parallel without seeing each other's changes.
export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: Math.min(Number(process.env.E2E_WORKERS ?? 3), E2E_MAX_WORKERS),
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"]],
  use: {
    // Recording a trace for every test cost a fifth of the CPU: only a retried test records one.
    trace: "on-first-retry",
    launchOptions: {
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
});

import { defineConfig, devices } from "@playwright/test";
import { E2E_MAX_WORKERS } from "./e2e/env";
import { chromiumPath } from "./scripts/chromium";

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
    // A click or a key press waiting for an element that never comes fails on its own, naming it,
    // instead of spending the test's whole minute (and its retry's).
    actionTimeout: 30_000,
    // A trace recorded for every test took a sixth of the CPU (e2e/teams.spec.ts: 75 s against 59 s):
    // only a retried test records one.
    trace: "on-first-retry",
    launchOptions: {
      executablePath: chromiumPath(),
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

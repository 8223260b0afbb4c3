import { vi } from "vitest";

/**
 * The first setup file of every test file: what a new process would give it, in a worker that
 * has run other files before (vitest.config.ts keeps workers, `isolate: false`, so the packages
 * under node_modules are loaded once per worker instead of once per file). Reset here as vitest
 * resets between files of an isolating worker: every module of ours evaluated afresh and module
 * mocks dropped; and beyond that, the environment variables and the `globalThis` entries the
 * previous files set (the app's per-process holders, e.g. app/events/bus.server.ts), and the clock.
 */
type Baseline = { globals: Set<string>; env: Record<string, string | undefined> };
const holder = globalThis as typeof globalThis & { __freshProcessBaseline?: Baseline };
const OWN_GLOBALS = /vitest|vite|chai|jest|__coverage__/i;

if (!holder.__freshProcessBaseline) {
  const globals = new Set([...Object.keys(globalThis), "__freshProcessBaseline"]);
  holder.__freshProcessBaseline = { globals, env: { ...process.env } };
} else {
  const baseline = holder.__freshProcessBaseline;
  for (const key of Object.keys(globalThis)) {
    if (!baseline.globals.has(key) && !OWN_GLOBALS.test(key))
      delete (globalThis as Record<string, unknown>)[key];
  }
  for (const key of Object.keys(process.env)) if (!(key in baseline.env)) delete process.env[key];
  Object.assign(process.env, baseline.env);
  vi.useRealTimers();
  (globalThis as { __vitest_mocker__?: { reset(): void } }).__vitest_mocker__?.reset();
  vi.resetModules();
}

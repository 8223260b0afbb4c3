import { spawnSync } from "node:child_process";
import { chromiumPath } from "./chromium";

// `npm test`: typecheck, lint, the production build, unit/integration, then end to end against the build.
type Step = [name: string, command: string[], env?: Record<string, string>];
const postgres = Boolean(process.env.TEST_POSTGRES_URL);
const steps: Step[] = [
  ["typecheck", ["npm", "run", "-s", "typecheck"]],
  ["lint", ["npx", "biome", "check", "."]],
  // Before vitest: test/two-instances.test.ts runs two production servers from it.
  ["build", ["npm", "run", "-s", "build"]],
  // SQLite and, with TEST_POSTGRES_URL, PostgreSQL side by side in one run (vitest.config.ts),
  // each test file on a copy of the run's template database (test/database-template.ts).
  [
    postgres ? "unit and integration (SQLite and PostgreSQL)" : "unit and integration (SQLite)",
    ["npx", "vitest", "run"],
    { TEST_DATABASE: postgres ? "all" : "sqlite", TWO_INSTANCE_BUILD_DIR: process.env.BUILD_DIR ?? "build" },
  ],
  ["end to end", ["npx", "playwright", "test"]],
];

try {
  chromiumPath();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const started = Date.now();
if (!postgres) console.log("TEST_POSTGRES_URL is not set: the PostgreSQL pass is skipped");
for (const [name, [cmd, ...args], extraEnv] of steps) {
  const t = Date.now();
  console.log(`\n▶ ${name}: ${cmd} ${args.join(" ")}`);
  const result = spawnSync(cmd!, args, {
    stdio: "inherit",
    env: { ...process.env, ...extraEnv, FORCE_COLOR: "1" },
  });
  if (result.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}
console.log(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);

import { spawnSync } from "node:child_process";
import { chromiumPath } from "./chromium";

// `npm test`: typecheck, lint, unit/integration, then end to end against a production build.
type Step = [name: string, command: string[], env?: Record<string, string>];
const steps: Step[] = [
  ["typecheck", ["npm", "run", "-s", "typecheck"]],
  ["lint", ["npx", "biome", "check", "."]],
  ["unit and integration (SQLite)", ["npx", "vitest", "run"]],
  ["build", ["npm", "run", "-s", "build"]],
  // The same suite again on PostgreSQL, each test file on a schema of its own (test/setup-db.ts);
  // after the build, because test/two-instances.test.ts runs two production servers from it.
  ...(process.env.TEST_POSTGRES_URL
    ? [
        [
          "unit and integration (PostgreSQL)",
          ["npx", "vitest", "run"],
          { TEST_DATABASE: "postgres", TWO_INSTANCE_BUILD_DIR: process.env.BUILD_DIR ?? "build" },
        ] as Step,
      ]
    : []),
  ["end to end", ["npx", "playwright", "test"]],
];

try {
  chromiumPath();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const started = Date.now();
if (!process.env.TEST_POSTGRES_URL)
  console.log("TEST_POSTGRES_URL is not set: the PostgreSQL pass is skipped");
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

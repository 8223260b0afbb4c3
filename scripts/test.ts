import { spawn, spawnSync } from "node:child_process";
import { chromiumPath } from "./chromium";
import { containerInputsChanged } from "./container/inputs";

// `npm test`: typecheck, lint, the production build, unit/integration, then end to end against the build.
type Step = { name: string; command: string[]; env?: Record<string, string> };
const postgres = Boolean(process.env.TEST_POSTGRES_URL);
/** Passing it is printed loudly, not failed. */
const BUDGET_S = Number(process.env.TEST_BUDGET_S ?? 500);
// Workers of each database's pass when they run side by side: 2 + 3 starved both (SQLite 373 s
// instead of 228 s) and the cluster test ran past its time; 2 + 2 finished in 316 s.
const SQLITE_WORKERS = 2;
const POSTGRES_WORKERS = 2;

// Alone first, since tsc and knip read the route types.
const typegen: Step = { name: "route types", command: ["npx", "react-router", "typegen"] };
const typecheck: Step = { name: "typecheck", command: ["npx", "tsc"] };
const lint: Step = { name: "lint", command: ["npm", "run", "-s", "lint"] };
// Before vitest: test/two-instances.test.ts runs two production servers from it.
const build: Step = { name: "build", command: ["npm", "run", "-s", "build"] };
/**
 * Vitest once per database, the two side by side: SQLite's pass keeps the CPU busy, PostgreSQL's
 * waits on its server and on the processes its tests start, so together they took 316 s where one
 * after the other took 455-475 s (docs/testing.md). Each migrates and seeds its own template
 * (test/database-template.ts) and copies it for each test file.
 */
function vitestOn(engine: "sqlite" | "postgres", workers?: number): Step {
  return {
    name: engine === "sqlite" ? "unit and integration (SQLite)" : "unit and integration (PostgreSQL)",
    command: ["npx", "vitest", "run"],
    env: {
      TEST_DATABASE: engine,
      TWO_INSTANCE_BUILD_DIR: process.env.BUILD_DIR ?? "build",
      ...(workers && !process.env.VITEST_MAX_WORKERS ? { VITEST_MAX_WORKERS: String(workers) } : {}),
    },
  };
}
const e2e: Step = { name: "end to end", command: ["npx", "playwright", "test"] };
/** Minutes of image building: only when the image's inputs changed since it last passed (scripts/container/inputs.ts). */
const container: Step = { name: "container", command: ["npm", "run", "-s", "test:container"] };

/** tsc is one thread for most of its 35 s, so the lint and the build fit beside it on a second core. */
const vitest: Step[][] = postgres
  ? [[vitestOn("sqlite", SQLITE_WORKERS)], [vitestOn("postgres", POSTGRES_WORKERS)]]
  : [[vitestOn("sqlite")]];
const stages: Step[][][] = [[[typegen]], [[typecheck], [lint, build]], vitest, [[e2e]]];
if (containerInputsChanged()) {
  if (process.env.CI || hasCommand("podman")) stages.push([[container]]);
  else
    console.log(
      "!!! The container's inputs changed since `npm run test:container` last passed, and podman is not installed here: run it where it is (docs/testing.md#container).",
    );
}

try {
  chromiumPath();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

function hasCommand(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;
}

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

/** Beside others, a step's output is held and printed whole. */
function run(step: Step, alone: boolean): Promise<{ ok: boolean; output: string }> {
  const [cmd, ...args] = step.command;
  const t = Date.now();
  if (alone) console.log(`\n▶ ${step.name}: ${step.command.join(" ")}`);
  const child = spawn(cmd!, args, {
    stdio: alone ? "inherit" : ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...step.env, FORCE_COLOR: "1" },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on("close", (code) => {
      const ok = code === 0;
      if (!alone) process.stdout.write(`\n▶ ${step.name}: ${step.command.join(" ")}\n${output}`);
      console.log(
        ok ? `✔ ${step.name} (${seconds(t)} s)` : `\n✖ ${step.name} failed (exit ${code}, ${seconds(t)} s)`,
      );
      resolve({ ok, output });
    });
  });
}

async function lane(steps: Step[], alone: boolean) {
  for (const step of steps) if (!(await run(step, alone)).ok) return false;
  return true;
}

const started = Date.now();
if (!postgres) console.log("TEST_POSTGRES_URL is not set: the PostgreSQL pass is skipped");
for (const stage of stages) {
  const t = Date.now();
  const results = await Promise.all(stage.map((steps) => lane(steps, stage.length === 1)));
  if (stage.length > 1 && !results.includes(false))
    console.log(
      `✔ ${stage
        .flat()
        .map((s) => s.name)
        .join(" + ")} side by side (${seconds(t)} s)`,
    );
  if (results.includes(false)) {
    console.log(`\nnpm test failed after ${seconds(started)} s`);
    process.exit(1);
  }
}
const total = (Date.now() - started) / 1000;
console.log(`\nall checks passed in ${total.toFixed(1)} s`);
if (total > BUDGET_S) {
  console.log(
    `\n!!! OVER BUDGET: npm test took ${total.toFixed(0)} s, over its ${BUDGET_S} s share of CI's 600 s.`,
  );
  console.log(
    "!!! Find where the time went (the step times above) before adding more tests; docs/testing.md.",
  );
}

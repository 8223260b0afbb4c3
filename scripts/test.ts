import { spawnSync } from "node:child_process";
import { chromiumPath } from "./chromium";

// `npm test`: typecheck, lint, unit/integration, then end to end against a production build.
const steps: [string, string[]][] = [
  ["typecheck", ["npm", "run", "-s", "typecheck"]],
  ["lint", ["npx", "biome", "check", "."]],
  ["unit and integration", ["npx", "vitest", "run"]],
  ["build", ["npx", "react-router", "build"]],
  ["end to end", ["npx", "playwright", "test"]],
];

try {
  chromiumPath();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const started = Date.now();
for (const [name, [cmd, ...args]] of steps) {
  const t = Date.now();
  console.log(`\n▶ ${name}: ${cmd} ${args.join(" ")}`);
  const result = spawnSync(cmd!, args, { stdio: "inherit", env: { ...process.env, FORCE_COLOR: "1" } });
  if (result.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}
console.log(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);

import { existsSync } from "node:fs";
import { join } from "node:path";

/** Also in package.json's `start` (a test keeps the two the same); 32 MB took 8-12 % off a dashboard's CPU (decision 041). */
export const PRODUCTION_NODE_FLAGS = ["--max-semi-space-size=32"];

/** The compiled server.js, or server.ts through tsx for a build made with `react-router build` alone. */
export function productionServerArgs(buildDir: string): string[] {
  const compiled = join(buildDir, "server.js");
  if (existsSync(compiled)) return [...PRODUCTION_NODE_FLAGS, compiled];
  console.warn(`${compiled} is missing (\`npm run build\` writes it): running server.ts through tsx`);
  return [...PRODUCTION_NODE_FLAGS, "--import", "tsx", "server.ts"];
}

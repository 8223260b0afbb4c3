import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Node flags of the production server, also in package.json's `start` (a test keeps the two the same).
 * A larger young generation: renders filled node's default 16 MB semi-space several times a second
 * at 50 connections, and 32 MB took 8-12 % off a signed-in /dashboard's CPU (decision 041).
 */
export const PRODUCTION_NODE_FLAGS = ["--max-semi-space-size=32"];

/**
 * How a test or a benchmark starts the production server of `buildDir`: the compiled
 * `buildDir/server.js` that `npm run build` writes (what `npm start` runs), or, for a build made
 * with `react-router build` alone, server.ts through tsx (the same code, compiled on the fly).
 */
export function productionServerArgs(buildDir: string): string[] {
  const compiled = join(buildDir, "server.js");
  if (existsSync(compiled)) return [...PRODUCTION_NODE_FLAGS, compiled];
  console.warn(`${compiled} is missing (\`npm run build\` writes it): running server.ts through tsx`);
  return [...PRODUCTION_NODE_FLAGS, "--import", "tsx", "server.ts"];
}

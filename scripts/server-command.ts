import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * How a test or a benchmark starts the production server of `buildDir`: the compiled
 * `buildDir/server.js` that `npm run build` writes (what `npm start` runs), or, for a build made
 * with `react-router build` alone, server.ts through tsx (the same code, compiled on the fly).
 */
export function productionServerArgs(buildDir: string): string[] {
  const compiled = join(buildDir, "server.js");
  if (existsSync(compiled)) return [compiled];
  console.warn(`${compiled} is missing (\`npm run build\` writes it): running server.ts through tsx`);
  return ["--import", "tsx", "server.ts"];
}

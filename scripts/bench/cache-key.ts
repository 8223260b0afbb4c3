import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// What a seeded bulk database depends on: a change to any of these files seeds it again.
const SOURCES = ["db/migrate.ts", "app/server/seed.server.ts", "scripts/seed-bulk.ts"];
const FOLDERS = ["db/migrations", "scripts/bulk"];

const isSource = (name: string) => name.endsWith(".ts") && !name.endsWith(".test.ts");

/**
 * Names a seeded database by the schema's latest migration (readable: which schema it holds) and a
 * short hash of the migrations, the seed and the bulk generator (exact: any edit reseeds).
 */
export function cacheKey(root = "."): string {
  const migrations = readdirSync(join(root, "db/migrations")).filter(isSource).sort();
  const latest = migrations.at(-1)?.replace(/\.ts$/, "") ?? "none";
  const files = [
    ...SOURCES,
    ...FOLDERS.flatMap((folder) =>
      readdirSync(join(root, folder))
        .filter(isSource)
        .sort()
        .map((f) => `${folder}/${f}`),
    ),
  ];
  const hash = createHash("sha256");
  for (const file of files)
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(join(root, file)))
      .update("\0");
  return `${latest.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${hash.digest("hex").slice(0, 10)}`;
}

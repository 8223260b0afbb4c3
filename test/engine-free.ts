import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Test files that never reach a database: no setupDatabase, no db(), no migration, no seed, no
 * fuzz harness, no built app, no event bus. The PostgreSQL pass leaves them out (vitest.config.ts):
 * they ran there exactly as on SQLite, each paying a worker's module start-up and a schema of its
 * own for nothing. A file that names any of these runs on both passes, so a new database test
 * cannot fall out by accident: it has no tables until it calls setupDatabase.
 */
const REACHES_A_DATABASE =
  /setupDatabase|db\(|database|postgres|\bpg\b|sqlite|migrat|seed|harness|kysely|sql`|Bus|composeServices|app-build|buildApp|loader|action\(/i;

const FOLDERS = ["app", "db", "scripts", "emails", "test"];

function testFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(root, path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

export function engineFreeTestFiles(root: string): string[] {
  return FOLDERS.flatMap((dir) => testFiles(root, dir)).filter(
    (file) => !REACHES_A_DATABASE.test(readFileSync(join(root, file), "utf8")),
  );
}

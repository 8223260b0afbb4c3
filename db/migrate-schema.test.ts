import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { onPostgres, testPostgresUrl, withSchema } from "../test/postgres-schema";
import { createDb } from "./connection";
import { migrateToLatest, SCHEMA_CHANGE_LOCK } from "./migrate";

// The project's tsx itself, not through npx (which costs a second of its own each time).
const TSX = resolve("node_modules/.bin/tsx");

function cli(script: string, databaseUrl: string) {
  try {
    const stdout = execFileSync(TSX, [script], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        NODE_ENV: "development",
        SUPER_ADMIN_PASSWORD: "a fine long passphrase",
      },
      encoding: "utf8",
      stdio: "pipe",
    });
    return { status: 0, stdout, stderr: "" };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { status: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

async function dropSchema(name: string) {
  const c = new pg.Client({ connectionString: testPostgresUrl() });
  await c.connect();
  try {
    await c.query("select pg_advisory_lock($1)", [SCHEMA_CHANGE_LOCK]);
    await c.query(`drop schema if exists ${name} cascade`);
  } finally {
    await c.end();
  }
}

describe("a database that is not there yet", () => {
  it.skipIf(!onPostgres)("migrating into ?schema=NAME creates the schema when it is missing", async () => {
    const name = `nope_${randomBytes(5).toString("hex")}`;
    const db = createDb(withSchema(testPostgresUrl(), name));
    try {
      expect(await migrateToLatest(db)).toContain("001_initial");
      const tables = await db.selectFrom("permission").select("id").execute();
      expect(tables).toEqual([]);
      expect(await migrateToLatest(db)).toEqual([]);
    } finally {
      await db.destroy();
      await dropSchema(name);
    }
  });

  it.skipIf(!onPostgres)(
    "`npm run db:migrate` and `db:seed` with a missing schema work, no stack trace",
    async () => {
      const name = `nope_${randomBytes(5).toString("hex")}`;
      const url = withSchema(testPostgresUrl(), name);
      try {
        const migrate = cli("scripts/migrate.ts", url);
        expect(migrate.stderr).not.toMatch(/\n\s+at /);
        expect(migrate).toMatchObject({ status: 0 });
        await dropSchema(name);
        const seed = cli("scripts/seed.ts", url);
        expect(seed.stderr).not.toMatch(/\n\s+at /);
        expect(seed.status).toBe(0);
        expect(seed.stdout).toContain("permissions: inserted");
      } finally {
        await dropSchema(name);
      }
    },
    60_000,
  );

  // Its database is the fixed unreachable address below, whatever the pass: PostgreSQL's would
  // repeat SQLite's two tsx processes to the same answer.
  it.skipIf(onPostgres)(
    "an unreachable database: one line on stderr and exit code 1, from both scripts",
    () => {
      for (const script of ["scripts/migrate.ts", "scripts/seed.ts"]) {
        const out = cli(script, "postgres://postgres@127.0.0.1:1/nowhere");
        expect(out.status, script).toBe(1);
        expect(
          out.stderr
            .trim()
            .split("\n")
            .filter((l) => !l.startsWith("npm warn")),
        ).toHaveLength(1);
        expect(out.stderr).toMatch(/failed: .*127\.0\.0\.1:1|ECONNREFUSED/);
      }
    },
    60_000,
  );
});

import { randomBytes, randomUUID } from "node:crypto";
import {
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seed } from "../../app/server/seed.server";
import { createDb } from "../../db/connection";
import { migrateToLatest } from "../../db/migrate";
import { SIZES, type SizeName } from "../bulk/sizes";
import { seedBulk } from "../seed-bulk";
import { cacheKey } from "./cache-key";
import { BENCH_ADMIN } from "./fixtures";
import * as pgAdmin from "./postgres";

/** Never the cache itself. */
export type BenchDatabase = { url: string; seed: string; drop(): Promise<void> };

// Bulk rows are dated up to seeding; after a week the overview's last 14 days would be half empty.
const MAX_AGE_MS = 7 * 86_400_000;

const seedEnv = {
  NODE_ENV: "production",
  SUPER_ADMIN_EMAIL: BENCH_ADMIN.email,
  SUPER_ADMIN_PASSWORD: BENCH_ADMIN.password,
};

type Seeded = { seededAt: string; ms: number; rows: Record<string, number> };

const reusedLabel = (s: Seeded) =>
  `seeded ${s.seededAt.slice(0, 16).replace("T", " ")} in ${(s.ms / 1000).toFixed(1)} s, reused`;

export async function seedSize(url: string, size: SizeName, log = console.log): Promise<Seeded> {
  const db = createDb(url);
  try {
    await migrateToLatest(db);
    const t0 = performance.now();
    await seed(db, seedEnv);
    const spec = SIZES[size];
    const rows = spec
      ? (
          await seedBulk(db, spec, {
            onTable: (table, n, ms) =>
              log(`  ${table.padEnd(14)} ${String(n).padStart(9)} rows  ${(ms / 1000).toFixed(1)} s`),
          })
        ).rows
      : {};
    return { seededAt: new Date().toISOString(), ms: performance.now() - t0, rows };
  } finally {
    await db.destroy();
  }
}

export async function ensureSqliteCache(
  size: SizeName,
  cacheDir: string,
): Promise<{ file: string; seeded: Seeded }> {
  mkdirSync(cacheDir, { recursive: true });
  const file = join(cacheDir, `${size}-${cacheKey()}.db`);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta) && Date.now() - statSync(file).mtimeMs < MAX_AGE_MS)
    return { file, seeded: JSON.parse(readFileSync(meta, "utf8")) as Seeded };
  for (const old of readdirSync(cacheDir).filter((f) => f.startsWith(`${size}-`)))
    rmSync(join(cacheDir, old), { force: true });
  console.log(`seeding the ${size} database into ${file} (once; later runs reuse it)`);
  // Renamed at the end, so an interrupted seed is never taken for a cache.
  const partial = `${file}.partial-${randomBytes(4).toString("hex")}`;
  try {
    const seeded = await seedSize(`file:${partial}`, size);
    renameSync(partial, file);
    writeFileSync(meta, JSON.stringify(seeded, null, 2));
    console.log(`${size}: seeded in ${(seeded.ms / 1000).toFixed(1)} s`);
    return { file, seeded };
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(partial + suffix, { force: true });
  }
}

export async function ensurePostgresTemplate(
  size: SizeName,
  url: string,
): Promise<{ name: string; seeded: Seeded }> {
  const prefix = `bench_cache_${size}_`;
  // PostgreSQL cuts names at 63 bytes: the hash goes first.
  const key = cacheKey();
  const name = `${prefix}${key.slice(-10)}_${key.slice(0, -11)}`.slice(0, 63);
  const comment = await pgAdmin.databaseComment(url, name);
  const found = comment ? (JSON.parse(comment) as Seeded) : undefined;
  if (found && Date.now() - Date.parse(found.seededAt) < MAX_AGE_MS) return { name, seeded: found };
  for (const old of await pgAdmin.databasesLike(url, prefix)) await pgAdmin.dropDatabase(url, old);
  console.log(`seeding the ${size} database into PostgreSQL database ${name} (once; later runs copy it)`);
  const partial = `bench_partial_${randomBytes(5).toString("hex")}`;
  await pgAdmin.createDatabase(url, partial);
  try {
    const seeded = await seedSize(pgAdmin.databaseUrl(url, partial), size);
    await pgAdmin.setDatabaseComment(url, partial, JSON.stringify(seeded));
    await pgAdmin.renameDatabase(url, partial, name);
    console.log(`${size}: seeded in ${(seeded.ms / 1000).toFixed(1)} s`);
    return { name, seeded };
  } finally {
    await pgAdmin.dropDatabase(url, partial);
  }
}

export async function databaseFor(
  size: SizeName,
  opts: { databaseUrl?: string; cacheDir: string },
): Promise<BenchDatabase> {
  if (opts.databaseUrl) {
    const url = opts.databaseUrl;
    const name = `bench_run_${randomBytes(5).toString("hex")}`;
    const drop = () => pgAdmin.dropDatabase(url, name);
    if (!SIZES[size]) {
      await pgAdmin.createDatabase(url, name);
      const seeded = await seedSize(pgAdmin.databaseUrl(url, name), size);
      return { url: pgAdmin.databaseUrl(url, name), seed: `seed ${seeded.ms.toFixed(0)} ms`, drop };
    }
    const template = await ensurePostgresTemplate(size, url);
    await pgAdmin.createDatabase(url, name, template.name);
    return { url: pgAdmin.databaseUrl(url, name), seed: reusedLabel(template.seeded), drop };
  }
  const file = join(tmpdir(), `bench-${randomUUID()}.db`);
  const drop = async () => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  };
  if (!SIZES[size]) {
    const seeded = await seedSize(`file:${file}`, size);
    return { url: `file:${file}`, seed: `seed ${seeded.ms.toFixed(0)} ms`, drop };
  }
  const cache = await ensureSqliteCache(size, opts.cacheDir);
  // A copy, so what this run writes never accumulates in the cache.
  copyFileSync(cache.file, file, constants.COPYFILE_FICLONE);
  return { url: `file:${file}`, seed: reusedLabel(cache.seeded), drop };
}

// npm run bench:scale: seeds the bench's bulk sizes (BENCH_SIZES; default 10k and 100k) once into
// .bench/ (or, with BENCH_DATABASE_URL, template databases on that PostgreSQL server), so that
// `npm run bench` copies them instead of seeding. A changed migration, seed or bulk generator, or a
// copy older than a week, seeds again; otherwise this says what it already has.
import { SIZES } from "../bulk/sizes";
import { ensurePostgresTemplate, ensureSqliteCache } from "./databases";
import { benchOptions } from "./options";

const opts = benchOptions();
for (const size of opts.sizes.filter((s) => SIZES[s])) {
  const { seeded } = opts.databaseUrl
    ? await ensurePostgresTemplate(size, opts.databaseUrl)
    : await ensureSqliteCache(size, opts.cacheDir);
  const rows = Object.entries(seeded.rows)
    .map(([table, n]) => `${table} ${n}`)
    .join(", ");
  console.log(`${size}: seeded ${seeded.seededAt} in ${(seeded.ms / 1000).toFixed(1)} s (${rows})`);
}

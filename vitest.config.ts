import { availableParallelism } from "node:os";
import { configDefaults, defineConfig, type Plugin } from "vitest/config";
import { engineFreeTestFiles } from "./test/engine-free";
import SlowFirst from "./test/slow-first";

/**
 * React Router's rule for `.client` modules on the server (its `react-router:dot-client` plugin):
 * every export is undefined. test/app-build.ts imports the route modules here, without that plugin.
 */
function clientModulesStubbed(): Plugin {
  return {
    name: "client-modules-stubbed",
    transform(code, id, options) {
      if (!options?.ssr || !/\.client(\.[cm]?[jt]sx?)?$|\/\.client\//.test(id.split("?")[0]!)) return;
      const names = [...code.matchAll(/export\s+(?:const|let|var|function|class)\s+(\w+)/g)].map((m) => m[1]);
      const lines = names.map((name) => `export const ${name} = undefined;`);
      if (/export\s+default\b/.test(code)) lines.push("export default undefined;");
      return { code: lines.join("\n"), map: null };
    },
  };
}

/**
 * One project per database. TEST_DATABASE picks: unset or `sqlite` runs SQLite only, `postgres`
 * PostgreSQL only, `all` both in one run (one project's files, then the other's). `npm test` starts
 * two runs side by side instead, one per database (scripts/test.ts). Each project migrates and
 * seeds its template once (test/database-template.ts).
 */
const wanted = process.env.TEST_DATABASE ?? "sqlite";
const workers = Number(process.env.VITEST_MAX_WORKERS ?? Math.max(2, availableParallelism()));
// `--maxWorkers` on the command line overrides maxWorkers but not minWorkers (tinypool then refuses
// a minimum above the maximum): the minimum is left to vitest there.
const workersFromCli = process.argv.some((arg) => /^--max-?workers/i.test(arg));
const databases = (["sqlite", "postgres"] as const).filter((name) => wanted === "all" || wanted === name);

// Kept apart from vite.config.ts: the React Router plugin must not run under vitest.
export default defineConfig({
  plugins: [clientModulesStubbed()],
  // React's production JSX runtime: test/react-production.ts loads React's production build.
  esbuild: { jsxDev: false },
  // One cache per database's run: npm test starts both at once, and each rewrote the other's
  // file timings (the slow-first order reads them) with what it had read at its start.
  cacheDir: `node_modules/.vite/vitest-${wanted}`,
  test: {
    include: [
      "app/**/*.test.ts",
      "db/**/*.test.ts",
      "scripts/**/*.test.ts",
      "emails/**/*.test.ts*",
      "test/**/*.test.ts",
    ],
    setupFiles: ["./test/fresh-process.ts", "./test/react-production.ts", "./test/setup-db.ts"],
    pool: "forks",
    // Workers are kept from file to file, so node_modules load once per worker rather than once
    // per file (seconds for the app's graph); test/fresh-process.ts gives each file fresh modules.
    isolate: false,
    // vitest's default leaves a core idle (one worker on a 2-core machine); the tests wait on
    // their databases often enough to keep one worker per core busy beside vitest itself.
    maxWorkers: workers,
    // All of them for the whole run: vitest's default minimum is one, and tinypool ends a worker
    // the moment it is idle above the minimum, which raced a file handed to it at a project's
    // start ("Terminating worker thread", an unhandled rejection that failed the run).
    minWorkers: workersFromCli ? undefined : workers,
    sequence: { sequencer: SlowFirst },
    // A deadline for a hung test, not a speed check: under CI's load (both passes side by side on
    // two cores) a slow machine took db/like.test.ts's hand-picked case past 20 s on PostgreSQL.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: databases.map((name) => ({
      extends: true,
      test: {
        name,
        env: { TEST_DATABASE: name },
        globalSetup: ["./test/database-template.ts"],
        // Files that never open a database run once, on SQLite (test/engine-free.ts).
        exclude:
          name === "postgres"
            ? [...configDefaults.exclude, ...engineFreeTestFiles(import.meta.dirname)]
            : configDefaults.exclude,
      },
    })),
  },
});

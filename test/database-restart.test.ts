import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { productionServerArgs } from "../scripts/server-command";
import { PASSWORD, SEED_ENV } from "./database-template";
import { onPostgres } from "./postgres-schema";
import {
  startThrowawayPostgres,
  type ThrowawayPostgres,
  throwawayPostgresAvailable,
} from "./support/throwaway-postgres";

// A PostgreSQL restart under a running production server: no process exits, requests during the
// outage fail fast with 503 and Retry-After (readiness fails, liveness does not), and everything
// answers again within 5 s of the database's return. The database is a throwaway cluster of this
// test's own (test/support/throwaway-postgres.ts), so restarting it disturbs no other test.
// Runs in the PostgreSQL pass, with a production build (as test/two-instances.test.ts).
const BUILD_DIR = process.env.PRODUCTION_BUILD_DIR ?? process.env.TWO_INSTANCE_BUILD_DIR ?? "build";
const built = existsSync(resolve(BUILD_DIR, "server/index.js"));
/** The throwaway cluster's port (one of its own: the shared server's 5432 stays untouched). */
const PG_PORT = Number(process.env.THROWAWAY_PG_PORT ?? 25432);
const DOWN_MS = 2_000;

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
    srv.on("error", fail);
  });
}

type Sample = {
  path: string;
  at: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  body: string;
};

describe.skipIf(!onPostgres || !built || !throwawayPostgresAvailable())(
  "a PostgreSQL restart under the production server",
  () => {
    let database: ThrowawayPostgres;
    let child: ChildProcess;
    let url: string;
    let cookie: string;
    const output: string[] = [];

    beforeAll(async () => {
      database = await startThrowawayPostgres({ port: PG_PORT });
      const handle = createDb(database.url);
      await migrateToLatest(handle);
      await seed(handle, SEED_ENV);
      await handle.destroy();
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      child = spawn(process.execPath, productionServerArgs(BUILD_DIR), {
        env: {
          ...process.env,
          NODE_ENV: "production",
          BUILD_DIR,
          PORT: String(port),
          HOST: "127.0.0.1",
          BASE_URL: url,
          DATABASE_URL: database.url,
          SESSION_SECRET: "database-restart-test-secret",
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.on("data", (d) => output.push(String(d)));
      child.stderr!.on("data", (d) => output.push(String(d)));
      await vi.waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`the server exited: ${output.join("")}`);
          expect((await fetch(`${url}/readyz`)).status).toBe(200);
        },
        { timeout: 30_000, interval: 200 },
      );
      const login = await fetch(`${url}/login`, {
        method: "POST",
        body: new URLSearchParams({ email: SEED_ENV.SUPER_ADMIN_EMAIL, password: PASSWORD }),
        redirect: "manual",
      });
      expect(login.status).toBe(302);
      cookie = login.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
    }, 90_000);

    afterAll(async () => {
      if (child && child.exitCode === null) child.kill("SIGKILL");
      await database?.kill();
    });

    async function sample(path: string): Promise<Sample> {
      const started = performance.now();
      const res = await fetch(`${url}${path}`, { headers: { Cookie: cookie }, redirect: "manual" });
      const body = await res.text();
      return {
        path,
        at: started,
        ms: performance.now() - started,
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        body,
      };
    }

    it("keeps the process up, answers 503 with Retry-After while the database is away, and recovers within 5 s", async () => {
      const paths = ["/api/tasks", "/dashboard", "/dashboard/users", "/readyz", "/healthz"];
      for (const path of paths) expect((await sample(path)).status, path).toBe(200);

      // Requests keep coming the whole time: 8 at once, so pool clients are checked out (some in
      // transactions) when the server goes away, which is what ended the process before.
      const samples: Sample[] = [];
      const failures: string[] = [];
      let running = true;
      const workers = Array.from({ length: 8 }, async (_, i) => {
        for (let n = i; running; n++) {
          const path = paths[n % paths.length]!;
          try {
            samples.push(await sample(path));
          } catch (error) {
            failures.push(`${path}: ${String((error as Error).cause ?? error)}`);
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      });

      await new Promise((r) => setTimeout(r, 300));
      const restartStarted = performance.now();
      await database.restart({ downMs: DOWN_MS });
      const back = performance.now();

      // Everything answers 200 again within 5 s of the database's return.
      const recovered: Record<string, number> = {};
      await vi.waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`the server exited: ${output.join("")}`);
          for (const path of paths) {
            if (recovered[path] !== undefined) continue;
            if ((await sample(path)).status === 200) recovered[path] = performance.now() - back;
          }
          expect(Object.keys(recovered).sort()).toEqual([...paths].sort());
        },
        { timeout: 5_000, interval: 100 },
      );
      // A while longer under load, then a last look.
      await new Promise((r) => setTimeout(r, 500));
      running = false;
      await Promise.all(workers);
      console.log(
        `database down ${Math.round(back - restartStarted)} ms; back to 200 after (ms):`,
        Object.fromEntries(Object.entries(recovered).map(([p, ms]) => [p, Math.round(ms)])),
      );

      expect(child.exitCode, output.join("")).toBeNull();
      expect(failures, "no request failed without an answer").toEqual([]);
      // During the outage: 503 with Retry-After for what needs the database, never a 500.
      const byStatus = (path: string, status: number) =>
        samples.filter((s) => s.path === path && s.status === status);
      expect(
        samples.filter((s) => s.status !== 200 && s.status !== 503).map((s) => `${s.path} ${s.status}`),
      ).toEqual([]);
      for (const path of ["/api/tasks", "/dashboard", "/dashboard/users"]) {
        const refused = byStatus(path, 503);
        expect(refused.length, path).toBeGreaterThan(0);
        for (const s of refused) expect(s.retryAfter, path).toBe("2");
      }
      for (const s of byStatus("/api/tasks", 503))
        expect(JSON.parse(s.body)).toMatchObject({ error: "unavailable" });
      for (const s of byStatus("/dashboard", 503)) expect(s.body).toContain("Error 503");
      // Readiness fails while the database is away; liveness never does.
      expect(byStatus("/readyz", 503).map((s) => JSON.parse(s.body))).toContainEqual({
        ready: false,
        reason: "database",
      });
      expect(samples.filter((s) => s.path === "/healthz").every((s) => s.status === 200)).toBe(true);
      // Fast: an outage answer never waits for the database (bounded by the pool's 2 s connect timeout).
      const slowest = Math.max(...samples.filter((s) => s.status === 503).map((s) => s.ms));
      expect(slowest).toBeLessThan(3_000);
      expect(output.join("")).not.toMatch(/uncaught|unhandled/i);
    }, 60_000);

    it("brings the cross-instance event listener back within 5 s of the database's return, even after a long outage", async () => {
      // The listener's reconnect is what ends open event streams (so browsers reconnect and
      // reconcile what they missed): the stream's end shows when it came back. Its backoff once
      // doubled up to 30 s, so after a 9 s outage its next try came ~6 s after the database did.
      const stream = await fetch(`${url}/api/events`, { headers: { Cookie: cookie } });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      const ended = (async () => {
        for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return performance.now();
      })();
      const outageStarted = performance.now();
      await database.restart({ downMs: 9_000 });
      const back = performance.now();
      const end = await Promise.race([
        ended,
        new Promise<number>((r) => setTimeout(() => r(Infinity), 8_000)),
      ]);
      console.log(`event listener back ${Math.round(end - back)} ms after the database`);
      // Not ended by the outage itself. The listener may be back before pg_ctl's own wait returns,
      // so "after the database returned" is measured from the end of the 9 s down.
      expect(end - outageStarted).toBeGreaterThan(9_000);
      expect(end - back).toBeLessThan(5_000);
      expect(child.exitCode).toBeNull();
      await vi.waitFor(async () => expect((await sample("/readyz")).status).toBe(200), { timeout: 5_000 });
    }, 60_000);
  },
);

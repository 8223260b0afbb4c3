import { type AddressInfo, createServer, type Socket } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { closeDb, db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { setTaskRunner, type TaskRunner } from "../tasks/runner.server";
import { readiness } from "./readiness.server";

// GET /readyz's answer (app/http/node-server.server.ts serves it): not ready while the database is
// unreachable, ready again within a second of its return; not ready while the task runner is down.
// Draining: lifecycle.test.ts.
const NOWHERE = "postgres://nobody@127.0.0.1:41299/nothing";
let ownUrl: string;

async function useDatabase(url: string) {
  process.env.DATABASE_URL = url;
  resetEnvCache();
  await closeDb();
}

beforeAll(async () => {
  await setupDatabase();
  ownUrl = process.env.DATABASE_URL!;
});
afterAll(() => useDatabase(ownUrl));

describe("readiness", () => {
  it("fails while the database is unreachable, and recovers as soon as it answers", async () => {
    expect(await readiness()).toEqual({ ready: true });
    await useDatabase(NOWHERE);
    await vi.waitFor(async () => expect(await readiness()).toEqual({ ready: false, reason: "database" }), {
      timeout: 3_000,
      interval: 100,
    });
    await useDatabase(ownUrl);
    await vi.waitFor(async () => expect(await readiness()).toEqual({ ready: true }), {
      timeout: 3_000,
      interval: 100,
    });
  });

  it("asks the database at most once a second, however often it is asked", async () => {
    await new Promise((r) => setTimeout(r, 1_100));
    const answers = await Promise.all(Array.from({ length: 50 }, () => readiness()));
    expect(answers.every((a) => a.ready)).toBe(true);
    await useDatabase(NOWHERE);
    // The answer of the check made a moment ago stands for the rest of its second.
    expect(await readiness()).toEqual({ ready: true });
    await useDatabase(ownUrl);
  });

  it.skipIf(!onPostgres)(
    "stays ready while every pooled connection is busy (a load spike, not an outage)",
    async () => {
      process.env.DATABASE_POOL_SIZE = "2";
      await useDatabase(ownUrl);
      await new Promise((r) => setTimeout(r, 1_100));
      const busy = [0, 1].map(() => sql`select pg_sleep(1.5)`.execute(db()));
      // The check waits for a free connection longer than its bound: unknown, so the last answer stands.
      expect(await readiness()).toEqual({ ready: true });
      await Promise.all(busy);
      delete process.env.DATABASE_POOL_SIZE;
      await useDatabase(ownUrl);
    },
  );

  it("fails once the database has given no answer for 2 s (a cut network, a stopped server)", async () => {
    // Accepts connections and never says a word, as a server behind a cut network or a paused VM.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    onTestFinished(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => silent.close(r));
      await useDatabase(ownUrl);
      await vi.waitFor(async () => expect(await readiness()).toEqual({ ready: true }), { timeout: 3_000 });
    });
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await readiness()).toEqual({ ready: true });
    await useDatabase(`postgres://nobody@127.0.0.1:${(silent.address() as AddressInfo).port}/silent`);
    // Each check gives up within its second; the silence becomes "no" once it has lasted 2 s.
    await vi.waitFor(async () => expect(await readiness()).toEqual({ ready: false, reason: "database" }), {
      timeout: 6_000,
      interval: 200,
    });
  });

  it("fails while the task runner says it is not healthy", async () => {
    let healthy = true;
    const runner: TaskRunner & { healthy(): boolean } = {
      dispatch() {},
      async start() {},
      async stop() {},
      healthy: () => healthy,
    };
    setTaskRunner(runner);
    expect(await readiness()).toEqual({ ready: true });
    healthy = false;
    expect(await readiness()).toEqual({ ready: false, reason: "tasks" });
  });
});

import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Kysely } from "kysely";
import { createDb } from "../../db/connection";
import type { Database } from "../../db/schema";
import { SIZES, type SizeName } from "../bulk/sizes";
import { type BenchDatabase, databaseFor } from "./databases";
import { type Endpoint, endpoints } from "./endpoints";
import {
  BENCH_ADMIN,
  benchFixtures,
  type Fixtures,
  processingTasks,
  tasksSettled,
  usersWithSessions,
} from "./fixtures";
import type { BenchOptions } from "./options";
import { type RunningServer, startServer } from "./server";

/** One data size, served: its database, its server on a port of its own, and the URLs to measure. */
export type Target = {
  size: SizeName;
  rows: string;
  database: BenchDatabase;
  server: RunningServer;
  db: Kysely<Database>;
  fx: Fixtures;
  webhookSecret: string;
  /** other users' cookies for the SSE figures (only when asked for) */
  others: string[];
  endpoints: Endpoint[];
  close(): Promise<void>;
};

const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

export function rowsLabel(size: SizeName): string {
  const spec = SIZES[size];
  return spec
    ? `${count(spec.users)} users / ${count(spec.audits)} audit rows / ${count(spec.tasks)} tasks`
    : "seed only";
}

export async function openTarget(
  size: SizeName,
  port: number,
  opts: BenchOptions,
  withSse: boolean,
): Promise<Target> {
  mkdirSync(opts.cacheDir, { recursive: true });
  const database = await databaseFor(size, opts);
  const secret = randomBytes(32).toString("hex");
  const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  const db = createDb(database.url);
  let server: RunningServer | undefined;
  try {
    const fx = await benchFixtures(db, secret);
    // Ten streams per user at most (app/events/stream.server.ts), so enough users to hold them all.
    const others = withSse
      ? await usersWithSessions(db, Math.max(100, Math.ceil(Math.max(...opts.sse) / 10)), secret, "Other")
      : [];
    server = await startServer(
      {
        NODE_ENV: "production",
        BUILD_DIR: opts.buildDir,
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: `http://127.0.0.1:${port}`,
        SESSION_SECRET: secret,
        TASK_WEBHOOK_SECRET: webhookSecret,
        SUPER_ADMIN_EMAIL: BENCH_ADMIN.email,
        SUPER_ADMIN_PASSWORD: BENCH_ADMIN.password,
        LOG_LEVEL: "warn",
        // The load posts tasks as one user as fast as it can; it measures the route, not the cap.
        TASK_MAX_OPEN_PER_USER: "100000",
      },
      join(opts.cacheDir, `server-${size}.log`),
    );
    const running = server;
    const list = endpoints(
      fx,
      {
        secret: webhookSecret,
        // one task per request: the sequential ones, then as many as 10 connections could complete
        taskIds: () => processingTasks(db, opts.samples + 10 + 2000 * opts.seconds),
      },
      () => tasksSettled(db, fx.owner.id),
    );
    return {
      size,
      rows: rowsLabel(size),
      database,
      server: running,
      db,
      fx,
      webhookSecret,
      others: others.map((o) => o.cookie),
      endpoints: list,
      async close() {
        await running.stop();
        await db.destroy();
        await database.drop();
      },
    };
  } catch (error) {
    await server?.stop();
    await db.destroy();
    await database.drop();
    throw error;
  }
}

import { sql } from "kysely";
import { isPostgresUrl } from "../../db/connection";
import { db } from "../db.server";
import { env } from "../env.server";
import { busResynced, createInProcessBus, setSystemBusFactory } from "../events/bus.server";
import { bumpGeneration, readGenerations } from "../events/cache-generations.server";
import { setClusterLink } from "../events/cluster.server";
import { createDbEventLog } from "../events/event-log.server";
import { createPostgresBus } from "../events/postgres-bus.server";
import { createQueueRunner } from "../tasks/queue-runner.server";
import { InProcessTaskRunner, setTaskRunnerFactory } from "../tasks/runner.server";
import { runDailyCleanup, runHourly } from "./cleanup.server";

/**
 * The one place that picks implementations for this deployment. SQLite serves one instance, so the
 * defaults (events and tasks in this process) stand; on PostgreSQL several instances share the
 * database, so events cross them by LISTEN/NOTIFY and tasks go to the graphile-worker queue.
 * The bus and the runner know their interfaces only, never each other's implementations.
 */
export function composeServices(databaseUrl = env().DATABASE_URL) {
  if (!isPostgresUrl(databaseUrl)) {
    setSystemBusFactory(undefined);
    setTaskRunnerFactory(undefined);
    return;
  }
  setSystemBusFactory(() => {
    const bus = createPostgresBus({
      url: databaseUrl,
      local: createInProcessBus(),
      log: createDbEventLog(),
      notify: (channel, payloads) =>
        sql`select pg_notify(${channel}, p) from unnest(${payloads}::text[]) with ordinality as t(p, i) order by i`.execute(
          db(),
        ),
      onResync: busResynced,
    });
    setClusterLink({
      ...bus,
      async announce(cache) {
        await bumpGeneration(cache).catch((error) => console.error(`[cluster] ${cache}: ${error}`));
        await bus.announce(cache);
      },
      generations: readGenerations,
    });
    return bus;
  });
  setTaskRunnerFactory(() =>
    createQueueRunner(new InProcessTaskRunner(), runDailyCleanup, { hourly: runHourly }),
  );
}

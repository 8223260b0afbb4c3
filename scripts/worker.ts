import { loadDotEnv } from "./dotenv";

// `npm run worker`: a process that only runs queued tasks and the scheduled cleanup (PostgreSQL),
// for deployments that set TASK_WORKER=separate on the web instances, or want extra workers.
loadDotEnv();
process.env.TASK_WORKER = "in-app";
const { env } = await import("../app/env.server");
if (!/^postgres(ql)?:\/\//.test(env().DATABASE_URL)) {
  console.error("npm run worker needs DATABASE_URL=postgres://…; with SQLite the app runs tasks itself.");
  process.exit(1);
}
const { lifecycle } = await import("../app/server/lifecycle.server");
await lifecycle.start();
console.log("worker started: running queued tasks and the scheduled cleanup");

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    const failures = await lifecycle.stop();
    // Non-zero when a stop step failed or the queue's runner could not be restarted
    // (app/tasks/queue-watchdog.server.ts), so the supervisor sees a failure and starts it again.
    process.exit(failures.length > 0 ? 1 : (process.exitCode ?? 0));
  });
}

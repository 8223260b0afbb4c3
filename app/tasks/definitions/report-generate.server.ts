import { z } from "zod";
import { db } from "../../db.server";
import { env } from "../../env.server";
import { defineTask, TaskError } from "../definition.server";

const MAX_DURATION_MS = 60_000;

// The demonstration task: waits, reporting progress, then counts what the system holds.
export const reportGenerate = defineTask({
  type: "report.generate",
  payload: z
    .object({
      // Longer requests are capped rather than refused (docs/rules.md, "Tasks").
      durationMs: z
        .number()
        .int()
        .min(0)
        .transform((ms) => Math.min(ms, MAX_DURATION_MS))
        .optional(),
      fail: z.boolean().optional(),
    })
    .nullish()
    .transform((p) => p ?? {}),
  async run(payload, { signal, progress }) {
    const duration = payload.durationMs ?? env().TASK_DEMO_DURATION_MS;
    const steps = Math.max(1, Math.min(20, Math.floor(duration / 250)));
    for (let step = 1; step <= steps; step++) {
      await sleep(duration / steps, signal);
      progress(step / steps);
    }
    if (payload.fail) throw new TaskError("The report failed, as asked: this was a simulated failure.");
    return { title: "System report", generatedAt: new Date().toISOString(), ...(await counts()) };
  },
});

async function counts() {
  const [users, roles, tasks] = await Promise.all([
    db()
      .selectFrom("user")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
    db()
      .selectFrom("role")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
    db()
      .selectFrom("task")
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy("status")
      .execute(),
  ]);
  const byStatus = { pending: 0, processing: 0, completed: 0, failed: 0 } as Record<string, number>;
  for (const row of tasks) byStatus[row.status] = Number(row.n);
  return { users: Number(users.n), roles: Number(roles.n), tasks: byStatus };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", aborted, { once: true });
  });
}

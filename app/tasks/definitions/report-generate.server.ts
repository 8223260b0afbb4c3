import { z } from "zod";
import { counterTotals } from "../../../db/counted";
import { db } from "../../db.server";
import { env } from "../../env.server";
import { english } from "../../i18n/english.server";
import { defineTask, TaskError } from "../definition.server";

const MAX_DURATION_MS = 60_000;

// The demonstration task: waits, reporting progress, then counts what the system holds.
export const reportGenerate = defineTask({
  type: "report.generate",
  // Only reads: running it again gives a fresh report.
  rerunnable: true,
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
    if (payload.fail) throw new TaskError(english("tasks.failure.simulated"));
    return { title: "System report", generatedAt: new Date().toISOString(), ...(await counts()) };
  },
});

const STATUSES = ["pending", "processing", "completed", "failed"] as const;

/**
 * What the system holds, from the maintained counters (decision 010) and the roles (a handful):
 * counting the tables themselves read every user and task, a second per report at 1M tasks.
 */
async function counts() {
  const [totals, roles] = await Promise.all([
    // Scope '': the whole system's counters.
    counterTotals(db(), "", ["users.total", ...STATUSES.map((s) => `tasks.status.${s}` as const)]),
    db()
      .selectFrom("role")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow(),
  ]);
  const tasks = Object.fromEntries(STATUSES.map((s) => [s, totals[`tasks.status.${s}`]]));
  return { users: totals["users.total"], roles: Number(roles.n), tasks };
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

import { remember } from "@epic-web/remember";
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { env } from "../env.server";
import { type EventBus, systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";
import { runWithRequestId } from "../http/request-id.server";
import { inSpan } from "../http/tracing.server";
import { english } from "../i18n/english.server";
import type { Message } from "../i18n/message";
import { taskFinished, webhookDelivered, webhookRetried } from "../metrics/metrics.server";
import { completeTask } from "./completion.server";
import { type TaskDefinition, TaskError } from "./definition.server";
import { type Deliver, DeliveryError, httpDeliver } from "./delivery.server";
import { taskDefinition } from "./registry.server";
import {
  type Completion,
  claimTask,
  findTask,
  idsWithStatus,
  processingTasks,
  pruneDeliveries,
  releaseTask,
} from "./repository.server";
import type { FinalStatus } from "./task-types";

export interface TaskRunner {
  dispatch(taskId: string): void;
  start(): Promise<void>;
  /** A re-runnable task goes back to `pending` after the grace period; any other fails. */
  stop(): Promise<void>;
  /** GET /readyz answers 503 while false. */
  healthy?(): boolean;
  stopTaking?(): void;
  /** A durable queue adds its job in the transaction that inserts the task row. */
  enqueue?(taskId: string, trx: Transaction<Database>): Promise<void>;
  readonly ownsSchedule?: boolean;
}

export type RunnerOptions = {
  concurrency?: number;
  timeoutMs?: number;
  graceMs?: number;
  retryDelaysMs?: number[];
  deliver?: Deliver;
  definitions?: (type: string) => TaskDefinition | undefined;
  bus?: EventBus;
  log?: (message: string, error?: unknown) => void;
};

// English, as the API answers it (docs/http-contract.md).
export const INTERRUPTED_ERROR = english("tasks.failure.interrupted");
export const SHUTDOWN_ERROR = english("tasks.failure.shutdown");

const DATABASE_RETRY_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000];

class Timeout extends Error {}
class Shutdown extends Error {}

type Outcome = { status: FinalStatus; result: unknown } | { status: "handed_back" };

export type Requeue = (taskId: string, trx: Transaction<Database>) => Promise<unknown>;

/** Suited to work under a minute (docs/rules.md, "Tasks"); longer work belongs on a dedicated queue. */
export class InProcessTaskRunner implements TaskRunner {
  private readonly queue: string[] = [];
  private readonly active = new Map<string, AbortController>();
  private readonly idleWaiters: (() => void)[] = [];
  private stopping = false;
  private pruneTimer: ReturnType<typeof setInterval> | undefined;
  private requeue: Requeue | undefined;

  constructor(private readonly options: RunnerOptions = {}) {}

  private get concurrency() {
    return this.options.concurrency ?? env().TASK_CONCURRENCY;
  }
  private get bus() {
    return this.options.bus ?? systemBus();
  }
  private log(message: string, error?: unknown) {
    (this.options.log ?? ((m, e) => console.error(m, e ?? "")))(message, error);
  }

  get runningCount() {
    return this.active.size;
  }
  get queuedCount() {
    return this.queue.length;
  }

  runningTaskIds(): string[] {
    return [...this.active.keys()];
  }

  requeueWith(requeue: Requeue | undefined) {
    this.requeue = requeue;
  }

  private rerunnable(type: string): boolean {
    return (this.options.definitions ?? taskDefinition)(type)?.rerunnable === true;
  }

  dispatch(taskId: string) {
    if (this.stopping || this.active.has(taskId) || this.queue.includes(taskId)) return;
    this.queue.push(taskId);
    this.pump();
  }

  async start() {
    this.stopping = false;
    await pruneDeliveries();
    // One runner owns the table, so anything still `processing` was cut off: only a re-runnable
    // task runs again, so side effects never happen twice.
    for (const task of await processingTasks()) {
      if (this.rerunnable(task.type)) await releaseTask(task.id, task.attempt);
      else
        await completeTask(task.id, {
          taskId: task.id,
          status: "failed",
          result: { error: INTERRUPTED_ERROR },
          attempt: task.attempt,
        });
    }
    for (const id of await idsWithStatus("pending")) this.dispatch(id);
    this.pruneTimer = setInterval(() => void pruneDeliveries().catch(() => {}), 3_600_000);
    this.pruneTimer.unref?.();
  }

  async stop() {
    this.stopping = true;
    clearInterval(this.pruneTimer);
    this.queue.length = 0;
    if (this.active.size === 0) return;
    const grace = this.options.graceMs ?? env().TASK_SHUTDOWN_GRACE_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.idle(), new Promise((r) => (timer = setTimeout(r, grace)))]);
    clearTimeout(timer);
    for (const controller of this.active.values()) controller.abort(new Shutdown(SHUTDOWN_ERROR));
    await this.idle();
  }

  /** For a durable queue's worker, which decides concurrency and order; "stopping": not run. */
  async runNow(taskId: string): Promise<"done" | "stopping"> {
    if (this.stopping) return "stopping";
    if (this.active.has(taskId)) return "done";
    const controller = new AbortController();
    this.active.set(taskId, controller);
    try {
      await this.execute(taskId, controller);
    } finally {
      this.active.delete(taskId);
      if (this.active.size === 0 && this.queue.length === 0) {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    }
    return "done";
  }

  idle(): Promise<void> {
    if (this.active.size === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump() {
    while (!this.stopping && this.active.size < this.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const controller = new AbortController();
      this.active.set(id, controller);
      void this.execute(id, controller)
        .catch((error) => this.log(`task ${id}: runner error`, error))
        .finally(() => {
          this.active.delete(id);
          this.pump();
          if (this.active.size === 0 && (this.queue.length === 0 || this.stopping)) {
            for (const resolve of this.idleWaiters.splice(0)) resolve();
          }
        });
    }
  }

  private async execute(id: string, controller: AbortController) {
    const attempt = await claimTask(id);
    if (attempt === null) return;
    const row = await findTask(id);
    if (!row) return;
    // Under the id of the request that started it, so its logs and webhook name that request; in
    // its trace too, when tracing is on.
    const traced = { parent: row.trace_parent, attributes: { "task.id": id, "task.type": row.type } };
    await runWithRequestId(row.request_id, () =>
      inSpan(`task.run ${row.type}`, traced, async () => {
        this.progress(row.user_id, id, 0);
        const started = performance.now();
        const outcome = await this.work(row.type, row.payload, { id, userId: row.user_id }, controller);
        // A row's type is data, and a label set must stay bounded.
        const known = (this.options.definitions ?? taskDefinition)(row.type) ? row.type : "unknown";
        if (outcome.status === "handed_back") {
          // A later answer from this run cannot finish the task: it names an attempt no longer current.
          if (!(await releaseTask(id, attempt, this.requeue)))
            this.log(`task ${id}: not handed back, it is no longer this run's`);
          return;
        }
        taskFinished(known, outcome.status, performance.now() - started);
        await inSpan("task.webhook", { kind: "client" }, () =>
          this.finish({ taskId: id, attempt, ...outcome }),
        );
      }),
    );
  }

  private async work(
    type: string,
    payloadText: string | null,
    task: { id: string; userId: string },
    controller: AbortController,
  ): Promise<Outcome> {
    const definition = (this.options.definitions ?? taskDefinition)(type);
    if (!definition) return failed({ key: "tasks.unknownType", values: { type } });
    const parsed = definition.payload.safeParse(payloadText === null ? undefined : JSON.parse(payloadText));
    if (!parsed.success) return failed({ key: "tasks.failure.payloadInvalid" });

    const timeoutMs = definition.timeoutMs ?? this.options.timeoutMs ?? env().TASK_TIMEOUT_MS;
    const timer = setTimeout(
      () =>
        controller.abort(
          new Timeout(english("tasks.failure.timedOut", { seconds: Math.round(timeoutMs / 1000) })),
        ),
      timeoutMs,
    );
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    // Having done nothing, it is safe to run again whatever its type.
    if (controller.signal.reason instanceof Shutdown) return { status: "handed_back" };
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          controller.signal.throwIfAborted();
          const work = definition.run(parsed.data, {
            taskId: task.id,
            userId: task.userId,
            signal: controller.signal,
            progress: (fraction, message) => this.progress(task.userId, task.id, fraction, message),
          });
          const result = await Promise.race([work, aborted]);
          return { status: "completed", result: result ?? null };
        } catch (error) {
          // Work that is safe to repeat starts over once the database may be back, instead of failing.
          const pause = DATABASE_RETRY_DELAYS_MS[attempt];
          if (!definition.rerunnable || controller.signal.aborted || !isDatabaseUnavailable(error) || !pause)
            throw error;
          this.log(`task ${task.id} (${type}): the database is unreachable, running it again in ${pause} ms`);
          await Promise.race([new Promise((r) => setTimeout(r, pause)), aborted]);
        }
      }
    } catch (error) {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : error;
      if (reason instanceof Shutdown && definition.rerunnable) return { status: "handed_back" };
      if (error instanceof Timeout || error instanceof Shutdown || error instanceof TaskError)
        return failedWith(error.message);
      if (controller.signal.aborted) return failedWith((reason as Error).message);
      this.log(`task ${task.id} (${type}) failed`, error);
      return failed({ key: "tasks.failure.unexpected" });
    } finally {
      clearTimeout(timer);
    }
  }

  private progress(userId: string, taskId: string, fraction: number, message?: string) {
    const progress = Math.max(0, Math.min(1, fraction));
    // Not awaited, so the work does not wait on the log; logged so a reconnecting client sees it.
    void this.bus.publish(SYSTEM_EVENT_CHANNEL, {
      type: "task-progress",
      userId,
      taskId,
      status: "processing",
      progress,
      ...(message ? { message } : {}),
    });
  }

  private async finish(completion: Completion & { status: FinalStatus }) {
    const delays = this.options.retryDelaysMs ?? [250, 1_000, 4_000];
    const deliver = this.options.deliver ?? httpDeliver();
    for (let attempt = 0; !this.stopping; attempt++) {
      try {
        await deliver(completion);
        webhookDelivered(true);
        return;
      } catch (error) {
        const retryable = !(error instanceof DeliveryError) || error.retryable;
        if (!retryable || attempt >= delays.length) {
          this.log(`task ${completion.taskId}: webhook not delivered, recording directly`, error);
          break;
        }
        webhookRetried();
        await new Promise((r) => setTimeout(r, delays[attempt]));
      }
    }
    webhookDelivered(false);
    // Same delivery id as the webhook, so if it did land after all this is a harmless replay.
    for (let attempt = 0; ; attempt++) {
      try {
        await completeTask(completion.taskId, completion);
        return;
      } catch (error) {
        const pause = DATABASE_RETRY_DELAYS_MS[attempt];
        if (!isDatabaseUnavailable(error) || pause === undefined) throw error;
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }
}

function failedWith(error: string): Outcome {
  return { status: "failed", result: { error } };
}

function failed(reason: Message): Outcome {
  return failedWith(english(reason));
}

// One runner per process, also across the dev server's module reloads (decision 002).
const holder = remember("taskRunner", () => ({
  runner: undefined as TaskRunner | undefined,
  factory: undefined as (() => TaskRunner) | undefined,
}));

/** The composition root says which runner this deployment uses; until then, tasks run in process. */
export function setTaskRunnerFactory(factory: (() => TaskRunner) | undefined) {
  holder.factory = factory;
}

export function taskRunner(): TaskRunner {
  holder.runner ??= holder.factory?.() ?? new InProcessTaskRunner();
  return holder.runner;
}

export function setTaskRunner(runner: TaskRunner) {
  holder.runner = runner;
}

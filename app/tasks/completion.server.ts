import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";
import { inSpan, tracing } from "../http/tracing.server";
import { type ApplyOutcome, applyCompletion, type Completion, findTask } from "./repository.server";

const LOCK_TIMEOUT = "55P03";
const LOCK_ATTEMPTS = 3;

/** Applies a final state (from the webhook, or directly when it cannot be delivered) and tells the owner. */
export async function completeTask(deliveryId: string, completion: Completion): Promise<ApplyOutcome> {
  // In the trace of the request that started the task, when tracing is on.
  const parent = tracing() ? ((await findTask(completion.taskId))?.trace_parent ?? null) : null;
  return inSpan("task.completion", { parent, attributes: { "task.id": completion.taskId } }, async () => {
    // The event commits with the completion (EventBus.stage): a request cut after the commit (an
    // instance stopping under load) left a completed task whose owner never heard of it.
    let staged: { afterCommit(): Promise<void> } | undefined;
    const apply = () =>
      applyCompletion(deliveryId, completion, async (trx, userId) => {
        staged = await inSpan("event.push task-completed", {}, () =>
          systemBus().stage(trx, SYSTEM_EVENT_CHANNEL, [
            { type: "task-completed", userId, taskId: completion.taskId, status: completion.status },
          ]),
        );
      });
    let outcome: ApplyOutcome;
    for (let attempt = 1; ; attempt++) {
      try {
        outcome = await apply();
        break;
      } catch (error) {
        // The event log's order lock waited past its bound: the whole completion rolled back, so it is tried again.
        if (attempt >= LOCK_ATTEMPTS || (error as { code?: string })?.code !== LOCK_TIMEOUT) throw error;
      }
    }
    if (outcome.kind === "applied") await staged?.afterCommit();
    return outcome;
  });
}

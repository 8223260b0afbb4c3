import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";
import { inSpan, tracing } from "../http/tracing.server";
import { type ApplyOutcome, applyCompletion, type Completion, findTask } from "./repository.server";

/** Applies a final state (from the webhook, or directly when it cannot be delivered) and tells the owner. */
export async function completeTask(deliveryId: string, completion: Completion): Promise<ApplyOutcome> {
  // In the trace of the request that started the task, when tracing is on.
  const parent = tracing() ? ((await findTask(completion.taskId))?.trace_parent ?? null) : null;
  return inSpan("task.completion", { parent, attributes: { "task.id": completion.taskId } }, async () => {
    const outcome = await applyCompletion(deliveryId, completion);
    if (outcome.kind === "applied") {
      // Awaited: the event is in the log (with its id) before the webhook is answered, so a client
      // that reconnects anywhere afterwards is sent it (app/events/event-log.server.ts).
      await inSpan("event.push task-completed", {}, () =>
        systemBus().publish(SYSTEM_EVENT_CHANNEL, {
          type: "task-completed",
          userId: outcome.userId,
          taskId: completion.taskId,
          status: completion.status,
        }),
      );
    }
    return outcome;
  });
}

import { action as webhookAction } from "../app/routes/api.webhooks.tasks";
import type { Deliver } from "../app/tasks/delivery.server";
import { DeliveryError } from "../app/tasks/delivery.server";
import type { TaskRunner } from "../app/tasks/runner.server";
import { signWebhook } from "../app/tasks/webhook-signature.server";
import { args, request, run } from "./helpers";

/** A POST to the task webhook, signed unless told otherwise. */
export function webhookRequest(
  body: unknown,
  opts: { id?: string; at?: Date; headers?: Record<string, string>; unsigned?: boolean } = {},
): Request {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const id = opts.id ?? (body as { taskId?: string }).taskId ?? "msg";
  const signed = opts.unsigned ? {} : signWebhook(id, raw, opts.at);
  return request("/api/webhooks/tasks", {
    method: "POST",
    body: raw,
    headers: { "Content-Type": "application/json", ...signed, ...opts.headers },
  });
}

export function postWebhook(body: unknown, opts: Parameters<typeof webhookRequest>[1] = {}) {
  return run(() => webhookAction(args(webhookRequest(body, opts))));
}

/** Delivers through the real route module, as the HTTP server would, without a socket. */
export const deliverThroughRoute: Deliver = async (completion) => {
  const outcome = await postWebhook(completion);
  if (outcome.status !== 200) throw new DeliveryError(outcome.status);
};

/** A runner that only records what it was handed, so tasks stay pending for contract tests. */
export class RecordingRunner implements TaskRunner {
  dispatched: string[] = [];
  dispatch(taskId: string) {
    this.dispatched.push(taskId);
  }
  async start() {}
  async stop() {}
}

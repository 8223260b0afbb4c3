import { baseUrl, env } from "../env.server";
import { currentRequestId, REQUEST_ID_HEADER } from "../http/request-id.server";
import type { Completion } from "./repository.server";
import { signWebhook, WEBHOOK_PATH } from "./webhook-signature.server";

/** Sends one completion to the webhook; throws when it was not accepted. */
export type Deliver = (completion: Completion) => Promise<void>;

export class DeliveryError extends Error {
  constructor(
    readonly status: number,
    /** 4xx answers (other than 408/429) will not change on a retry. */
    readonly retryable = status >= 500 || status === 408 || status === 429,
  ) {
    super(`webhook answered ${status}`);
  }
}

/** This service's own webhook: at BASE_URL, or TASK_WEBHOOK_URL where the public name is not reachable from inside. */
export function webhookUrl(): string {
  return env().TASK_WEBHOOK_URL ?? `${baseUrl()}${WEBHOOK_PATH}`;
}

/** POSTs the signed completion to the webhook. */
export function httpDeliver(url = webhookUrl(), timeoutMs = 10_000): Deliver {
  return async (completion) => {
    const body = JSON.stringify(completion);
    // The runner runs a task under the id of the request that started it; the webhook takes it
    // up (api.webhooks.tasks.ts), so one id follows the work from the click to its completion.
    const requestId = currentRequestId();
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...signWebhook(completion.taskId, body),
        ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => {});
    if (!response.ok) throw new DeliveryError(response.status);
  };
}

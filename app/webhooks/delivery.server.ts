import { randomUUID } from "node:crypto";
import { db } from "../db.server";
import { outboundFetch } from "../http/outbound.server";
import { outgoingWebhookAttempt } from "../metrics/metrics.server";
import { signatureHeader } from "./secrets.server";

// The dispatcher (decision 032): each due message is claimed with a lease so no two instances send
// it; the state lives in the table, so a crash loses nothing.

/** After the last, the message is given up (~22 h in all). */
export const RETRY_DELAYS_S = [5, 30, 120, 600, 3_600, 10_800, 21_600, 43_200];
const TIMEOUT_MS = 10_000;
const MAX_READ_BYTES = 64 * 1024;
const EXCERPT_BYTES = 1024;
const LEASE_MS = TIMEOUT_MS + 20_000;
export const FAILING_DISABLE_MS = 3 * 86_400_000;
const BATCH = 20;

export type DisabledEndpoint = { id: string; url: string; reason: string };
export type DispatchOptions = {
  now?: () => Date;
  onEndpointDisabled?: (endpoint: DisabledEndpoint) => Promise<void>;
  /** Spreads retries so a recovering receiver is not hit by all of them at once; 0 in tests. */
  jitter?: number;
};

/** Only messages with no older message pending for the same resource and endpoint, so order holds. */
async function dueHeads(at: string) {
  return db()
    .selectFrom("webhook_message as m")
    .innerJoin("webhook_endpoint as e", "e.id", "m.endpoint_id")
    .select([
      "m.id",
      "m.body",
      "m.attempts",
      "m.endpoint_id",
      "e.url",
      "e.secret",
      "e.previous_secret",
      "e.previous_secret_until",
      "e.failing_since",
    ])
    .where("m.status", "=", "pending")
    .where("m.next_attempt_at", "<=", at)
    .where("e.enabled", "=", 1)
    .where((eb) => eb.or([eb("m.locked_until", "is", null), eb("m.locked_until", "<", at)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("webhook_message as o")
            .select("o.id")
            .whereRef("o.endpoint_id", "=", "m.endpoint_id")
            .whereRef("o.resource", "=", "m.resource")
            .where("o.status", "=", "pending")
            .where((eb) =>
              eb.or([
                eb("o.created_at", "<", eb.ref("m.created_at")),
                eb.and([eb("o.created_at", "=", eb.ref("m.created_at")), eb("o.id", "<", eb.ref("m.id"))]),
              ]),
            ),
        ),
      ),
    )
    .orderBy("m.next_attempt_at")
    .limit(BATCH)
    .execute();
}

type Due = Awaited<ReturnType<typeof dueHeads>>[number];

/** Null when another instance took it first. */
async function claim(id: string, at: Date): Promise<string | null> {
  const lease = new Date(at.getTime() + LEASE_MS).toISOString();
  const res = await db()
    .updateTable("webhook_message")
    .set({ locked_until: lease })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", at.toISOString())]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1 ? lease : null;
}

async function readSome(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_READ_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  // NUL cannot be stored in PostgreSQL text: a receiver answering one must not make us resend forever.
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString("utf8").replaceAll("\u0000", "\uFFFD");
}

type Outcome = { ok: boolean; status: number | null; response: string; latencyMs: number };

async function send(message: Due, at: Date): Promise<Outcome> {
  const started = performance.now();
  try {
    const response = await outboundFetch(message.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": "AdminDashboard-Webhooks/1",
        "webhook-id": message.id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": signatureHeader(message, message.id, at, message.body),
      },
      body: message.body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await readSome(response).catch(() => "");
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      status: response.status,
      response: text,
      latencyMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    const e = error as Error & { cause?: Error };
    const why = e.name === "TimeoutError" ? "No answer within 10 s" : (e.cause?.message ?? e.message);
    return {
      ok: false,
      status: null,
      response: why.slice(0, EXCERPT_BYTES).replaceAll("\u0000", "\uFFFD"),
      latencyMs: Math.round(performance.now() - started),
    };
  }
}

async function disable(endpointId: string, reason: string, at: string) {
  const res = await db()
    .updateTable("webhook_endpoint")
    .set({ enabled: 0, disabled_reason: reason, updated_at: at })
    .where("id", "=", endpointId)
    .where("enabled", "=", 1)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

async function settle(message: Due, lease: string, outcome: Outcome, at: Date, options: DispatchOptions) {
  const ts = at.toISOString();
  const attempts = Number(message.attempts) + 1;
  await db()
    .insertInto("webhook_attempt")
    .values({
      id: randomUUID(),
      message_id: message.id,
      created_at: ts,
      status_code: outcome.status,
      latency_ms: outcome.latencyMs,
      response: outcome.response,
      ok: outcome.ok ? 1 : 0,
    })
    .execute();
  outgoingWebhookAttempt(
    outcome.ok ? "delivered" : RETRY_DELAYS_S[attempts - 1] === undefined ? "failed" : "retrying",
  );
  if (outcome.ok) {
    await db()
      .updateTable("webhook_message")
      .set({ status: "delivered", attempts, delivered_at: ts, locked_until: null })
      .where("id", "=", message.id)
      // Only while the lease is ours: past it, another instance may have taken the message on.
      .where("locked_until", "=", lease)
      .execute();
    if (message.failing_since)
      await db()
        .updateTable("webhook_endpoint")
        .set({ failing_since: null })
        .where("id", "=", message.endpoint_id)
        .execute();
    return;
  }
  const delay = RETRY_DELAYS_S[attempts - 1];
  const jitter = 1 + (options.jitter ?? 0.1) * (Math.random() * 2 - 1);
  await db()
    .updateTable("webhook_message")
    .set(
      delay === undefined
        ? { status: "failed", attempts, locked_until: null }
        : {
            attempts,
            locked_until: null,
            next_attempt_at: new Date(at.getTime() + delay * 1000 * jitter).toISOString(),
          },
    )
    .where("id", "=", message.id)
    .where("locked_until", "=", lease)
    .execute();
  const failingSince = message.failing_since ?? ts;
  if (!message.failing_since)
    await db()
      .updateTable("webhook_endpoint")
      .set({ failing_since: ts })
      .where("id", "=", message.endpoint_id)
      .where("failing_since", "is", null)
      .execute();
  const reason =
    outcome.status === 410
      ? "The receiver answered 410 Gone."
      : at.getTime() - Date.parse(failingSince) >= FAILING_DISABLE_MS
        ? "Every delivery failed for 3 days."
        : null;
  if (reason && (await disable(message.endpoint_id, reason, ts)))
    await options.onEndpointDisabled?.({ id: message.endpoint_id, url: message.url, reason });
}

/** A message freed by its predecessor's delivery goes in the next batch. */
export async function deliverDue(options: DispatchOptions = {}): Promise<number> {
  let made = 0;
  for (let round = 0; round < 50; round++) {
    const at = options.now?.() ?? new Date();
    const due = await dueHeads(at.toISOString());
    if (due.length === 0) break;
    const mine: { m: Due; lease: string }[] = [];
    for (const m of due) {
      const lease = await claim(m.id, at);
      if (lease) mine.push({ m, lease });
    }
    if (mine.length === 0) break;
    await Promise.all(
      mine.map(async ({ m, lease }) => {
        const sentAt = options.now?.() ?? new Date();
        await settle(m, lease, await send(m, sentAt), sentAt, options);
      }),
    );
    made += mine.length;
  }
  return made;
}

let timer: ReturnType<typeof setTimeout> | undefined;
let running: Promise<unknown> | undefined;
let stopped = true;

export function startWebhookDispatcher(
  options: DispatchOptions & { intervalMs?: number; onError?: (e: unknown) => void } = {},
) {
  if (!stopped) return;
  stopped = false;
  const tick = () => {
    running = deliverDue(options)
      .catch(options.onError ?? ((e) => console.error("[webhooks]", e)))
      .finally(() => {
        running = undefined;
        if (!stopped) {
          timer = setTimeout(tick, options.intervalMs ?? 1_000);
          timer.unref?.();
        }
      });
  };
  timer = setTimeout(tick, options.intervalMs ?? 1_000);
  timer.unref?.();
}

export async function stopWebhookDispatcher() {
  stopped = true;
  clearTimeout(timer);
  await running;
}

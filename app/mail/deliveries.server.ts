import { randomBytes } from "node:crypto";
import type { MailDeliveryTable } from "../../db/schema";
import { db, now } from "../db.server";

// Public forms (register, forgot password, resend) answer before any mail leaves: the request
// stores a delivery row with an unguessable id and the send runs after the answer in this process,
// recording its outcome on the row, which any instance can show on "check your inbox".
// Not the task runner: tasks belong to a signed-in user (listed, streamed, webhook-completed);
// these requests have no user, and an unknown address must look exactly like a known one.

export type DeliveryPurpose = MailDeliveryTable["purpose"];
export type DeliveryState = MailDeliveryTable["status"];

/** Sends the mail (or, for an address that gets none, does nothing); false when the provider failed. */
export type MailJob = () => Promise<boolean>;

/** A send is over within the provider's 30 s timeout; a row still "sending" long after lost its process. */
const STALE_AFTER_MS = 2 * 60 * 1000;
const KEEP_FOR_MS = 24 * 60 * 60 * 1000;
const ID = /^[A-Za-z0-9_-]{32,64}$/;

const running = new Set<Promise<void>>();
// Recent durations of real sends: a job that sends nothing waits about as long, so how fast a
// request turns "sent" does not tell whether the address had an account.
const recentMs: number[] = [];
const DEFAULT_SEND_MS = 300;
// And the last real send's outcome: while the provider refuses, an address that gets no mail
// reads "failed" too, so a failure does not tell that the address has an account.
let lastOutcome = true;

function typicalSendMs() {
  if (recentMs.length === 0) return DEFAULT_SEND_MS;
  return Math.min(5_000, recentMs.reduce((a, b) => a + b, 0) / recentMs.length);
}

/** For an address that gets no mail: settles like a send would, in time and outcome. */
export const NO_MAIL: MailJob = () =>
  new Promise((resolve) => setTimeout(() => resolve(lastOutcome), typicalSendMs()).unref?.());

/** Wraps a job that really talks to the provider, so its duration feeds `typicalSendMs`. */
export function timedSend(job: MailJob): MailJob {
  return async () => {
    const started = performance.now();
    try {
      lastOutcome = await job();
      return lastOutcome;
    } finally {
      recentMs.push(performance.now() - started);
      if (recentMs.length > 20) recentMs.shift();
    }
  };
}

/** Records a "sending" delivery and runs the job after the current request; returns its id. */
export async function startDelivery(purpose: DeliveryPurpose, email: string, job: MailJob): Promise<string> {
  const id = randomBytes(24).toString("base64url");
  const ts = now();
  await db()
    .deleteFrom("mail_delivery")
    .where("created_at", "<", new Date(Date.now() - KEEP_FOR_MS).toISOString())
    .execute();
  await db()
    .insertInto("mail_delivery")
    .values({ id, purpose, email, status: "sending", created_at: ts, updated_at: ts })
    .execute();
  const work = new Promise<void>((resolve) => setImmediate(resolve))
    .then(job)
    .catch((error) => {
      console.error(`[mail] ${purpose} delivery ${id} failed unexpectedly`, error);
      return false;
    })
    .then((ok) => setStatus(id, ok ? "sent" : "failed"))
    .catch((error) => console.error(`[mail] could not record delivery ${id}`, error))
    .finally(() => running.delete(work));
  running.add(work);
  return id;
}

async function setStatus(id: string, status: DeliveryState) {
  await db().updateTable("mail_delivery").set({ status, updated_at: now() }).where("id", "=", id).execute();
}

export type DeliveryRecord = { id: string; purpose: DeliveryPurpose; email: string; state: DeliveryState };

/** The delivery behind a check-inbox link; a row whose process died while sending reads as failed. */
export async function findDelivery(id: unknown): Promise<DeliveryRecord | null> {
  if (typeof id !== "string" || !ID.test(id)) return null;
  const row = await db().selectFrom("mail_delivery").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return null;
  const stale = row.status === "sending" && Date.parse(row.created_at) < Date.now() - STALE_AFTER_MS;
  return { id: row.id, purpose: row.purpose, email: row.email, state: stale ? "failed" : row.status };
}

/** Resolves once every send started by this process has finished (tests; a graceful shutdown). */
export async function settleDeliveries(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}

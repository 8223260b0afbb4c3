import { randomBytes } from "node:crypto";
import type { MailDeliveryTable } from "../../db/schema";
import { db, now } from "../db.server";

// Public forms answer before any mail leaves, recording the outcome on a delivery row; not the task
// runner, as these requests have no user and an unknown address must look exactly like a known one.

export type DeliveryPurpose = MailDeliveryTable["purpose"];
export type DeliveryState = MailDeliveryTable["status"];

/** False when the provider failed. */
export type MailJob = () => Promise<boolean>;

/** A send is over within the provider's 30 s timeout; a row still "sending" long after lost its process. */
const STALE_AFTER_MS = 2 * 60 * 1000;
const KEEP_FOR_MS = 24 * 60 * 60 * 1000;
const ID = /^[A-Za-z0-9_-]{32,64}$/;

const running = new Set<Promise<void>>();
// A job that sends nothing waits about as long, so timing does not tell whether the address had an account.
const recentMs: number[] = [];
const DEFAULT_SEND_MS = 300;
// While the provider refuses, an address that gets no mail reads "failed" too, for the same reason.
let lastOutcome = true;

function typicalSendMs() {
  if (recentMs.length === 0) return DEFAULT_SEND_MS;
  return Math.min(5_000, recentMs.reduce((a, b) => a + b, 0) / recentMs.length);
}

export const NO_MAIL: MailJob = () =>
  new Promise((resolve) => setTimeout(() => resolve(lastOutcome), typicalSendMs()).unref?.());

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

/** A row whose process died while sending reads as failed. */
export async function findDelivery(id: unknown): Promise<DeliveryRecord | null> {
  if (typeof id !== "string" || !ID.test(id)) return null;
  const row = await db().selectFrom("mail_delivery").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return null;
  const stale = row.status === "sending" && Date.parse(row.created_at) < Date.now() - STALE_AFTER_MS;
  return { id: row.id, purpose: row.purpose, email: row.email, state: stale ? "failed" : row.status };
}

export async function settleDeliveries(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}

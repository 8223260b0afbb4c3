// Webhook -> SSE delivery as a task's owner sees it: the time from sending a signed completion to
// its `task-completed` frame arriving on the owner's open stream. The webhook goes over one
// keep-alive connection (as a task service would send them) and the frame is read off a plain
// http.get stream, so the client adds as little as it can to what is measured.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { Kysely } from "kysely";
import { Webhook } from "standardwebhooks";
import type { Database } from "../../db/schema";
import { openSse } from "./sse-client";

export type Delivery = { frame: number[]; response: number[] };

export type DeliveryTarget = {
  base: string;
  ownerId: string;
  ownerCookie: string;
  webhookSecret: string;
  db: () => Kysely<Database>;
};

/** Rows only the webhook moves: `processing`, never handed to a runner. */
async function processingTasks(db: Kysely<Database>, ownerId: string, count: number): Promise<string[]> {
  const ts = new Date().toISOString();
  const ids = Array.from({ length: count }, () => randomUUID());
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .insertInto("task")
      .values(
        ids.slice(i, i + 500).map((id) => ({
          id,
          type: "report.generate",
          status: "processing",
          user_id: ownerId,
          payload: null,
          result: null,
          created_at: ts,
          updated_at: ts,
          completed_at: null,
        })),
      )
      .execute();
  }
  return ids;
}

/**
 * `samples` completions, `intervalMs` apart from one send to the next (0: back to back, each sent
 * once the previous frame arrived and its response was read).
 */
export async function measureDelivery(
  target: DeliveryTarget,
  samples: number,
  intervalMs = 0,
): Promise<Delivery> {
  const db = target.db();
  const ids = await processingTasks(db, target.ownerId, samples).finally(() => db.destroy());
  const stream = await openSse(target.base, target.ownerCookie);
  const waiting = new Map<string, () => void>();
  stream.onFrame((frame) => {
    const id = /"taskId":"([^"]+)"/.exec(frame)?.[1];
    if (id) waiting.get(id)?.();
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const webhook = new Webhook(target.webhookSecret);
  const url = new URL("/api/webhooks/tasks", target.base);
  const out: Delivery = { frame: [], response: [] };
  const started = performance.now();
  try {
    for (const [i, id] of ids.entries()) {
      if (intervalMs > 0) {
        const due = started + i * intervalMs;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      }
      const body = JSON.stringify({ taskId: id, status: "completed", result: { bench: true } });
      const at = new Date();
      const headers = {
        "Content-Type": "application/json",
        "Content-Length": String(Buffer.byteLength(body)),
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": webhook.sign(id, at, body),
      };
      let t0 = 0;
      const frame = new Promise<number>((resolve) => waiting.set(id, () => resolve(performance.now() - t0)));
      const response = new Promise<number>((resolve, reject) => {
        const req = http.request(url, { method: "POST", headers, agent }, (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200
              ? resolve(performance.now() - t0)
              : reject(new Error(`webhook answered ${res.statusCode}`)),
          );
        });
        req.on("error", reject);
        t0 = performance.now();
        req.end(body);
      });
      const [f, r] = await Promise.all([frame, response]);
      waiting.delete(id);
      out.frame.push(f);
      out.response.push(r);
    }
  } finally {
    stream.close();
    agent.destroy();
  }
  return out;
}

export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { createDb } from "../../db/connection";
import { openMany, openSse } from "./sse-client";
import { percentile } from "./stats";

export type SseSetup = {
  base: string;
  databaseUrl: string;
  webhookSecret: string;
  owner: { id: string; cookie: string };
  /** other users' cookies, enough for `counts` streams at ten streams a user */
  others: string[];
  counts: number[];
  rssKb(): number;
};

const fmt = (n: number) => n.toFixed(2).padStart(8);

/** Webhook-to-SSE delivery alone and with other users' streams open, and memory per open stream. */
export async function sseFigures(s: SseSetup): Promise<string[]> {
  const lines: string[] = [];
  const print = (line: string) => {
    console.log(line);
    lines.push(line);
  };
  await webhookToSse(s, 50); // warm-up
  const quiet = await webhookToSse(s, 200);
  print(`webhook -> SSE, owner alone:            p50 ${fmt(quiet.p50)} ms   p99 ${fmt(quiet.p99)} ms`);
  const baseline = s.rssKb();
  const streams = [];
  let opened = 0;
  for (const count of s.counts) {
    streams.push(...(await openMany(s.base, s.others, count - opened)));
    opened = count;
    await new Promise((r) => setTimeout(r, 2000));
    const perStreamKb = (s.rssKb() - baseline) / count;
    const busy = await webhookToSse(s, 200);
    print(
      `+ ${String(count).padStart(5)} other users' streams open:  p50 ${fmt(busy.p50)} ms   p99 ${fmt(busy.p99)} ms   ${perStreamKb.toFixed(1)} KB RSS per open stream`,
    );
  }
  for (const stream of streams) stream.close();
  await new Promise((r) => setTimeout(r, 1000));
  return lines;
}

/** POSTs a signed completion per task and waits for its frame on the owner's stream. */
async function webhookToSse(s: SseSetup, samples: number) {
  const stream = await openSse(s.base, s.owner.cookie);
  const webhook = new Webhook(s.webhookSecret);
  const waiting = new Map<string, () => void>();
  stream.onFrame((frame) => {
    const id = /"taskId":"([^"]+)"/.exec(frame)?.[1];
    if (id) waiting.get(id)?.();
  });
  const ids = Array.from({ length: samples }, () => randomUUID());
  const db = createDb(s.databaseUrl);
  const ts = new Date().toISOString();
  // Rows the runner never sees (`processing`, never dispatched), so only the webhook moves them.
  await db
    .insertInto("task")
    .values(
      ids.map((id) => ({
        id,
        type: "report.generate",
        status: "processing" as const,
        user_id: s.owner.id,
        payload: null,
        result: null,
        created_at: ts,
        updated_at: ts,
        completed_at: null,
      })),
    )
    .execute();
  await db.destroy();
  const times: number[] = [];
  for (const id of ids) {
    const body = JSON.stringify({ taskId: id, status: "completed", result: { bench: true } });
    const at = new Date();
    const arrived = new Promise<void>((resolve) => waiting.set(id, resolve));
    const t0 = performance.now();
    const response = await fetch(`${s.base}/api/webhooks/tasks`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": webhook.sign(id, at, body),
      },
      body,
    });
    await response.arrayBuffer();
    await arrived;
    times.push(performance.now() - t0);
  }
  stream.close();
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

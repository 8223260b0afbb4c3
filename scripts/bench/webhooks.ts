// npm run bench:webhooks: outgoing webhook delivery on this machine (docs/decisions/032-outgoing-webhooks.md).
// A receiver on 127.0.0.1 that refuses a share of attempts with 503, one endpoint for every event,
// the dispatcher as the server runs it (polling every second), and changes written at a steady
// rate through the audit writer (people's changes: user.updated and audit.entry); prints messages, attempts, retries and the time from a change's
// commit to its delivery (p50/p99; first-attempt deliveries apart from retried ones).
//   BENCH_WEBHOOK_CHANGES=600  BENCH_WEBHOOK_RATE=20 (a second)  BENCH_WEBHOOK_REFUSE=0.1
//   BENCH_DATABASE_URL=postgres://… (default: a fresh SQLite file)
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const changes = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 600);
const rate = Number(process.env.BENCH_WEBHOOK_RATE ?? 20);
const refuse = Number(process.env.BENCH_WEBHOOK_REFUSE ?? 0.1);
process.env.DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? `file:${join(mkdtempSync(join(tmpdir(), "bench-webhooks-")), "app.db")}`;
process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.0/8";

const { migrateToLatest } = await import("../../db/migrate");
const { db, closeDb } = await import("../../app/db.server");
const { seed } = await import("../../app/server/seed.server");
const { audit } = await import("../../app/audit/audit.server");
const { createEndpoint } = await import("../../app/webhooks/endpoints.server");
const { startWebhookDispatcher, stopWebhookDispatcher } = await import("../../app/webhooks/delivery.server");
const { quantile } = await import("./sse-delivery");

await migrateToLatest(db());
await seed(db(), { SUPER_ADMIN_EMAIL: "bench@example.test", SUPER_ADMIN_PASSWORD: "bench-password-123" });
await db().deleteFrom("webhook_endpoint").execute();

type Receipt = { id: string; at: number; createdAt: number; ok: boolean };
const receipts: Receipt[] = [];
const receiver = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const ok = Math.random() >= refuse;
  receipts.push({
    id: String(req.headers["webhook-id"]),
    at: Date.now(),
    createdAt: Date.parse(JSON.parse(body).timestamp),
    ok,
  });
  res.writeHead(ok ? 204 : 503).end();
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const origin = { request: new Request("http://bench/webhooks", { headers: { "User-Agent": "bench" } }) };
await createEndpoint(
  { id: "bench", email: "bench@example.test", permissions: new Set(), isSuperAdmin: true },
  { url, events: ["*"] },
  origin,
);
const before = receipts.length;
startWebhookDispatcher({ onError: (e) => console.error(e) });

const started = Date.now();
for (let i = 0; i < changes; i++) {
  const due = started + (i * 1000) / rate;
  await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
  // Changes to 50 people, as an admin's day spreads them: each person's messages stay in order.
  await audit(origin, {
    action: "user.update",
    target: { type: "user", id: `user-${i % 50}` },
    details: { before: { name: `P${i}` }, after: { name: `P${i + 1}` } },
  });
}
// Every message delivered, or a minute for the retries (5 s, then 30 s) to come in.
const deadline = Date.now() + 60_000;
for (;;) {
  const pending = await db()
    .selectFrom("webhook_message")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  if (Number(pending.n) === 0 || Date.now() > deadline) break;
  await new Promise((r) => setTimeout(r, 500));
}
await stopWebhookDispatcher();
receiver.close();

const messages = await db().selectFrom("webhook_message").select(["id", "status", "attempts"]).execute();
const got = receipts.slice(before);
const firstOk = new Map<string, Receipt>();
for (const r of got) if (r.ok && !firstOk.has(r.id)) firstOk.set(r.id, r);
const attemptsOf = new Map(messages.map((m) => [m.id, Number(m.attempts)]));
const direct = [...firstOk.values()].filter((r) => attemptsOf.get(r.id) === 1).map((r) => r.at - r.createdAt);
const retried = [...firstOk.values()]
  .filter((r) => (attemptsOf.get(r.id) ?? 0) > 1)
  .map((r) => r.at - r.createdAt);
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "-" : `${Math.round(v)} ms`);
console.log(
  `engine: ${process.env.DATABASE_URL.startsWith("postgres") ? "PostgreSQL" : "SQLite"}; ${changes} changes at ${rate}/s, receiver refusing ${Math.round(refuse * 100)} % of attempts`,
);
console.log(
  `messages: ${messages.length} (${messages.filter((m) => m.status === "delivered").length} delivered, ${messages.filter((m) => m.status === "pending").length} pending, ${messages.filter((m) => m.status === "failed").length} given up)`,
);
console.log(`attempts: ${got.length}, retries: ${got.length - firstOk.size}`);
console.log(
  `change -> delivery, first attempt (${direct.length}): p50 ${ms(quantile(direct, 0.5))}, p99 ${ms(quantile(direct, 0.99))}`,
);
console.log(
  `change -> delivery, after retries (${retried.length}): p50 ${ms(quantile(retried, 0.5))}, p99 ${ms(quantile(retried, 0.99))}`,
);
await closeDb();

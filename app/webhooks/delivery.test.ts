import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, createUser, request, setupDatabase, signedIn } from "../../test/helpers";
import { audit } from "../audit/audit.server";
import { recordHead } from "../audit/checkpoint.server";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { metricsText } from "../metrics/endpoint.server";
import { resetMetrics } from "../metrics/metrics.server";
import { deleteUser, setUserStatus } from "../users/users.server";
import { pruneWebhookLog, replaySince, sendAgain } from "./deliveries.server";
import { deliverDue, FAILING_DISABLE_MS, RETRY_DELAYS_S } from "./delivery.server";
import { createEndpoint, rotateSecret, updateEndpoint } from "./endpoints.server";

// Delivery to a real receiver on this machine (OUTBOUND_ALLOW_PRIVATE opens 127.0.0.0/8 here):
// Standard Webhooks signatures the `standardwebhooks` library verifies, retries under one id,
// order within a resource, 410 and three days of failures disabling, and the connect-time refusal.

type Received = { id: string; timestamp: string; signature: string; body: string; type: string };
let server: Server;
let base: string;
let received: Received[] = [];
/** What the receiver answers next (status codes, consumed in order; 200 when empty). */
let answers: number[] = [];

beforeAll(async () => {
  await setupDatabase();
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.0/8";
  resetEnvCache();
  server = createServer(async (req: IncomingMessage, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.url === "/redirect") {
      res.writeHead(302, { Location: "http://10.0.0.1/inside" }).end();
      return;
    }
    received.push({
      id: String(req.headers["webhook-id"]),
      timestamp: String(req.headers["webhook-timestamp"]),
      signature: String(req.headers["webhook-signature"]),
      body,
      type: JSON.parse(body).type,
    });
    res.writeHead(answers.shift() ?? 200, { "Content-Type": "text/plain" }).end("x".repeat(5_000));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.close();
  delete process.env.OUTBOUND_ALLOW_PRIVATE;
  resetEnvCache();
});

beforeEach(async () => {
  await db().deleteFrom("webhook_endpoint").execute();
  received = [];
  answers = [];
});

const origin = () => args(request("/dashboard/settings/webhooks")) as { request: Request };

async function actor(): Promise<SessionUser> {
  const { cookie } = await signedIn(["super_admin"]);
  return (await getSessionUser({ request: request("/", { cookie }) }))!;
}

async function endpoint(events: string[], path = "/hook") {
  return createEndpoint(
    await actor(),
    { url: `${base}${path}`, events, description: "", enabled: true },
    origin(),
  );
}

const messages = () => db().selectFrom("webhook_message").selectAll().orderBy("created_at").execute();
const later = (ms: number) => () => new Date(Date.now() + ms);

describe("outgoing webhooks", () => {
  it("sends a committed change, signed so the standardwebhooks library verifies it; a rolled-back one sends nothing", async () => {
    const { secret } = await endpoint(["user.created", "user.disabled"]);
    const admin = await actor();
    const person = await createUser({ roles: ["user"] });
    await setUserStatus(admin, { id: person.id, status: "disabled" }, origin());
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await audit(origin(), { action: "user.disable", target: { type: "user", id: person.id } }, trx);
          throw new Error("rolled back");
        }),
    ).rejects.toThrow();
    expect(await deliverDue({ jitter: 0 })).toBeGreaterThan(0);
    const disabled = received.filter((r) => r.type === "user.disabled");
    expect(disabled).toHaveLength(1);
    const wh = new Webhook(secret);
    const payload = wh.verify(disabled[0]!.body, {
      "webhook-id": disabled[0]!.id,
      "webhook-timestamp": disabled[0]!.timestamp,
      "webhook-signature": disabled[0]!.signature,
    }) as { type: string; timestamp: string; data: { user: Record<string, unknown> } };
    expect(payload.type).toBe("user.disabled");
    expect(payload.data.user).toMatchObject({ id: person.id, email: person.email, status: "disabled" });
    expect(disabled[0]!.body).not.toMatch(/password|hash/i);
    expect(disabled[0]!.id).toMatch(/^msg_/);
    // A forged body does not verify.
    expect(() =>
      wh.verify(disabled[0]!.body.replace("disabled", "enabled"), {
        "webhook-id": disabled[0]!.id,
        "webhook-timestamp": disabled[0]!.timestamp,
        "webhook-signature": disabled[0]!.signature,
      }),
    ).toThrow();
    expect((await messages()).every((m) => m.status === "delivered")).toBe(true);
    const attempt = await db().selectFrom("webhook_attempt").selectAll().executeTakeFirstOrThrow();
    expect(attempt).toMatchObject({ status_code: 200, ok: 1 });
    expect(attempt.response).toHaveLength(1024); // the first 1 KB of a 5 KB answer
  });

  it("retries a failing receiver with backoff under the same webhook-id, then delivers", async () => {
    await endpoint(["settings.updated"]);
    answers = [500, 503, 502];
    await audit(origin(), { action: "settings.update", details: { changed: ["APP_NAME"] } });
    const t0 = Date.now();
    let offset = 0;
    await deliverDue({ jitter: 0, now: () => new Date(t0) });
    for (const delay of RETRY_DELAYS_S.slice(0, 3)) {
      // Not before its time.
      expect(await deliverDue({ jitter: 0, now: () => new Date(t0 + offset + delay * 1000 - 500) })).toBe(0);
      offset += delay * 1000 + 500;
      expect(await deliverDue({ jitter: 0, now: () => new Date(t0 + offset) })).toBe(1);
    }
    const entries = received.filter((r) => r.type === "settings.updated");
    expect(entries).toHaveLength(4);
    expect(new Set(entries.map((e) => e.id)).size).toBe(1);
    const message = (await messages()).find((m) => m.type === "settings.updated")!;
    expect(message).toMatchObject({ status: "delivered", attempts: 4 });
    expect(
      (await db().selectFrom("webhook_endpoint").select("failing_since").executeTakeFirstOrThrow())
        .failing_since,
    ).toBeNull();
  });

  it("delivers one resource's messages in order: a later one waits while an earlier one is retried", async () => {
    await endpoint(["user.created", "user.deleted"]);
    const admin = await actor();
    answers = [500];
    const person = await createUser({ roles: ["user"] });
    await audit(origin(), { action: "user.create", actor: admin, target: { type: "user", id: person.id } });
    await deleteUser(admin, { id: person.id }, origin());
    await deliverDue({ jitter: 0 });
    expect(received.map((r) => r.type)).toEqual(["user.created"]); // failed; user.deleted held back
    await deliverDue({ jitter: 0, now: later(6_000) });
    expect(received.map((r) => r.type)).toEqual(["user.created", "user.created", "user.deleted"]);
  });

  it("loses nothing across a restart mid-retry: the next dispatcher takes the message up from the table", async () => {
    await endpoint(["settings.updated"]);
    answers = [500];
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    // A claim left by a process that died holds only until its lease ends.
    await db()
      .updateTable("webhook_message")
      .set({ locked_until: new Date(Date.now() + 30_000).toISOString() })
      .execute();
    expect(await deliverDue({ jitter: 0, now: later(6_000) })).toBe(0);
    expect(await deliverDue({ jitter: 0, now: later(31_000) })).toBe(1);
    expect((await messages())[0]).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("disables an endpoint at once on 410 Gone, and after 3 days of failures, telling who manages settings", async () => {
    const gone = await endpoint(["settings.updated"]);
    const told: string[] = [];
    answers = [410];
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0, onEndpointDisabled: async (e) => void told.push(`${e.id}: ${e.reason}`) });
    expect(told).toEqual([`${gone.endpoint.id}: The receiver answered 410 Gone.`]);
    expect(await db().selectFrom("webhook_endpoint").select(["enabled"]).executeTakeFirstOrThrow()).toEqual({
      enabled: 0,
    });

    await db().deleteFrom("webhook_endpoint").execute();
    const failing = await endpoint(["settings.updated"]);
    answers = Array(20).fill(500);
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    await db()
      .updateTable("webhook_endpoint")
      .set({ failing_since: new Date(Date.now() - FAILING_DISABLE_MS).toISOString() })
      .execute();
    await deliverDue({ jitter: 0, now: later(6_000), onEndpointDisabled: async (e) => void told.push(e.id) });
    expect(told.at(-1)).toBe(failing.endpoint.id);
    // Turned on again by an admin: a fresh start.
    await updateEndpoint(await actor(), failing.endpoint.id, { enabled: true }, origin());
    expect(
      await db()
        .selectFrom("webhook_endpoint")
        .select(["enabled", "failing_since", "disabled_reason"])
        .executeTakeFirstOrThrow(),
    ).toEqual({
      enabled: 1,
      failing_since: null,
      disabled_reason: null,
    });
  });

  it("gives a message up after the last retry (about 22 hours)", async () => {
    await endpoint(["settings.updated"]);
    answers = Array(RETRY_DELAYS_S.length + 1).fill(500);
    await audit(origin(), { action: "settings.update" });
    const t0 = Date.now();
    let offset = 0;
    await deliverDue({ jitter: 0, now: () => new Date(t0) });
    for (const delay of RETRY_DELAYS_S) {
      offset += delay * 1000 + 500;
      await deliverDue({ jitter: 0, now: () => new Date(t0 + offset) });
    }
    expect(offset / 3_600_000).toBeGreaterThan(22);
    expect((await messages())[0]).toMatchObject({ status: "failed", attempts: RETRY_DELAYS_S.length + 1 });
  });

  it("signs with both secrets for 24 hours after a rotation", async () => {
    const { endpoint: ep, secret: old } = await endpoint(["settings.updated"]);
    const { secret: fresh } = await rotateSecret(await actor(), ep.id, origin());
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    const r = received.find((x) => x.type === "settings.updated")!;
    expect(r.signature.split(" ")).toHaveLength(2);
    const headers = {
      "webhook-id": r.id,
      "webhook-timestamp": r.timestamp,
      "webhook-signature": r.signature,
    };
    expect(() => new Webhook(old).verify(r.body, headers)).not.toThrow();
    expect(() => new Webhook(fresh).verify(r.body, headers)).not.toThrow();
    await db()
      .updateTable("webhook_endpoint")
      .set({ previous_secret_until: new Date(Date.now() - 1000).toISOString() })
      .execute();
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    const next = received.filter((x) => x.type === "settings.updated").at(-1)!;
    expect(next.signature.split(" ")).toHaveLength(1);
    expect(() =>
      new Webhook(old).verify(next.body, {
        "webhook-id": next.id,
        "webhook-timestamp": next.timestamp,
        "webhook-signature": next.signature,
      }),
    ).toThrow();
  });

  it("refuses at connect time an address that is not public any more, and does not follow a redirect", async () => {
    // A receiver of its own: no connection to it is pooled yet, so this one has to be opened.
    const fresh = createServer((_req, res) => {
      received.push({ id: "", timestamp: "", signature: "", body: "", type: "reached" });
      res.end();
    });
    await new Promise<void>((r) => fresh.listen(0, "127.0.0.1", r));
    const port = (fresh.address() as AddressInfo).port;
    await createEndpoint(
      await actor(),
      { url: `http://127.0.0.1:${port}/hook`, events: ["settings.updated"], description: "", enabled: true },
      origin(),
    );
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    resetEnvCache();
    try {
      await audit(origin(), { action: "settings.update" });
      await deliverDue({ jitter: 0 });
    } finally {
      process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.0/8";
      resetEnvCache();
    }
    fresh.close();
    expect(received).toEqual([]);
    const refused = await db().selectFrom("webhook_attempt").selectAll().executeTakeFirstOrThrow();
    expect(refused).toMatchObject({ ok: 0, status_code: null });
    expect(refused.response).toMatch(/not a public address/);

    await db().deleteFrom("webhook_endpoint").execute();
    await endpoint(["settings.updated"], "/redirect");
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    const redirected = await db()
      .selectFrom("webhook_attempt")
      .selectAll()
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(redirected).toMatchObject({ ok: 0, status_code: 302 });
  });

  it("sends one message again, and replays everything since a time, under their own ids", async () => {
    const { endpoint: ep } = await endpoint(["settings.updated"]);
    const admin = await actor();
    await audit(origin(), { action: "settings.update" });
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    const [first, second] = received.map((r) => r.id);
    await sendAgain(admin, first!, origin());
    await deliverDue({ jitter: 0 });
    expect(received.map((r) => r.id)).toEqual([first, second, first]);
    const replayed = await replaySince(admin, ep.id, new Date(Date.now() - 60_000).toISOString(), origin());
    expect(replayed).toBe(2);
    await deliverDue({ jitter: 0 });
    expect(received).toHaveLength(5);
  });

  it("streams every audit row as audit.entry, with its place in the chain", async () => {
    await endpoint(["audit.entry"]);
    await audit(origin(), { action: "mail.test", details: { to: "x@example.test" } });
    await deliverDue({ jitter: 0 });
    const entries = received.map(
      (r) =>
        JSON.parse(r.body) as { data: { action: string; seq: number; hash: string; hash_version: number } },
    );
    const entry = entries.find((e) => e.data.action === "mail.test")!;
    expect(entry.data).toMatchObject({
      action: "mail.test",
      seq: expect.any(Number),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      hash_version: 2,
    });
  });

  it("counts attempts by outcome, and shows the queue's depth and oldest age on scrape", async () => {
    resetMetrics();
    await endpoint(["settings.updated"]);
    answers = [500];
    await audit(origin(), { action: "settings.update" });
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    const before = (await metricsText()).body;
    expect(before).toMatch(/dashboard_outgoing_webhook_attempts_total\{outcome="retrying"\} 1/);
    // Two changes without a target: each its own resource, so the refused one holds nothing back.
    expect(before).toMatch(/dashboard_outgoing_webhook_attempts_total\{outcome="delivered"\} 1/);
    expect(before).toMatch(/dashboard_outgoing_webhook_queue_depth 1/);
    expect(
      Number(/^dashboard_outgoing_webhook_oldest_pending_seconds (\S+)$/m.exec(before)?.[1]),
    ).toBeGreaterThanOrEqual(0);
    await deliverDue({ jitter: 0, now: later(6_000) });
    const after = (await metricsText()).body;
    expect(after).toMatch(/dashboard_outgoing_webhook_attempts_total\{outcome="delivered"\} 2/);
    expect(after).toMatch(/dashboard_outgoing_webhook_queue_depth 0/);
  });

  it("sends each signed checkpoint as audit.checkpoint, so a copy of the chain's state lives outside", async () => {
    await endpoint(["audit.checkpoint"]);
    await audit(origin(), { action: "settings.update" });
    const checkpoint = (await recordHead())!;
    await deliverDue({ jitter: 0 });
    const sent = received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    expect(sent).toEqual([
      expect.objectContaining({
        type: "audit.checkpoint",
        data: expect.objectContaining({
          kind: "head",
          seq: checkpoint.seq,
          hash: checkpoint.hash,
          signature: checkpoint.signature,
        }),
      }),
    ]);
  });

  it("keeps the delivery log 30 days: older messages and attempts go with the daily cleanup, pending ones stay", async () => {
    await endpoint(["settings.updated"]);
    await audit(origin(), { action: "settings.update" });
    await audit(origin(), { action: "settings.update" });
    await deliverDue({ jitter: 0 });
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await db().updateTable("webhook_message").set({ created_at: old }).execute();
    await db().updateTable("webhook_attempt").set({ created_at: old }).execute();
    // One still owed (sent again, say): it stays.
    const [owed] = await messages();
    await db().updateTable("webhook_message").set({ status: "pending" }).where("id", "=", owed!.id).execute();
    expect(await pruneWebhookLog()).toBe(1);
    expect((await messages()).map((m) => m.status)).toEqual(["pending"]);
    expect(await db().selectFrom("webhook_attempt").selectAll().execute()).toEqual([]);
  });
});

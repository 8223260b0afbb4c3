import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { args, type Outcome, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { expectPrototypesClean, hostileBodies } from "../../test/support/hostile-keys";
import { invalidateRoles } from "../access/role-cache.server";
import { answerProblem } from "../api-docs/check-answer";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { action as retryAction } from "../routes/api.webhook-deliveries.$id.retry";
import { action as createAction, loader as listLoader } from "../routes/api.webhook-endpoints";
import { action as endpointAction, loader as endpointLoader } from "../routes/api.webhook-endpoints.$id";
import {
  loader as deliveriesLoader,
  action as replayAction,
} from "../routes/api.webhook-endpoints.$id.deliveries";
import { action as rotateAction } from "../routes/api.webhook-endpoints.$id.rotate-secret";
import { action as testAction } from "../routes/api.webhook-endpoints.$id.send-test";

// /api/webhook-endpoints (settings.manage, docs/http-contract.md): the secret is shown once, every
// address is checked before it is saved, and each change is audited.

beforeAll(async () => {
  await setupDatabase();
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.0/8";
  resetEnvCache();
});
afterAll(() => {
  delete process.env.OUTBOUND_ALLOW_PRIVATE;
  resetEnvCache();
});

const json = (cookie: string, method: string, body?: unknown, path = "/api/webhook-endpoints") =>
  request(path, {
    method,
    cookie,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** The answer is one the API description allows (app/api-docs). */
function described(method: string, path: string, outcome: Outcome) {
  expect(answerProblem(method, path, outcome.status, outcome.body), `${method} ${path}`).toBeNull();
}

describe("/api/webhook-endpoints", () => {
  it("refuses anyone without settings.manage, on every endpoint", async () => {
    const manager = await signedIn(["manager"]);
    const cases = [
      () => listLoader(args(request("/api/webhook-endpoints", { cookie: manager.cookie }))),
      () => createAction(args(json(manager.cookie, "POST", { url: "https://example.com/h", events: ["*"] }))),
      () =>
        endpointLoader(
          args(request("/api/webhook-endpoints/ep_x", { cookie: manager.cookie }), { id: "ep_x" }),
        ),
      () => rotateAction(args(json(manager.cookie, "POST", undefined, "/x"), { id: "ep_x" })),
      () => testAction(args(json(manager.cookie, "POST", undefined, "/x"), { id: "ep_x" })),
      () => retryAction(args(json(manager.cookie, "POST", undefined, "/x"), { id: "msg_x" })),
    ];
    for (const call of cases) expect((await run(call)).status).toBe(403);
    expect(await db().selectFrom("webhook_endpoint").selectAll().execute()).toEqual([]);
  });

  it("creates an endpoint with a secret shown once; lists, changes and deletes it; audits each", async () => {
    const admin = await signedIn(["admin"]);
    const created = await run(() =>
      createAction(
        args(
          json(admin.cookie, "POST", {
            url: "http://127.0.0.1:9/hook",
            events: ["user.created", "user.deleted", "user.created"],
            description: "CRM",
          }),
        ),
      ),
    );
    expect(created.status).toBe(201);
    described("POST", "/api/webhook-endpoints", created);
    const body = created.body as { id: string; secret: string; events: string[]; enabled: boolean };
    const at = `/api/webhook-endpoints/${body.id}`;
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(body).toMatchObject({ events: ["user.created", "user.deleted"], enabled: true });
    // Stored encrypted, never readable again.
    const row = await db()
      .selectFrom("webhook_endpoint")
      .selectAll()
      .where("id", "=", body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(body.secret.slice(6, 20));
    const list = await run(() =>
      listLoader(args(request("/api/webhook-endpoints", { cookie: admin.cookie }))),
    );
    described("GET", "/api/webhook-endpoints", list);
    expect(JSON.stringify(list.body)).not.toContain(body.secret);
    expect((list.body as { endpoints: unknown[] }).endpoints).toHaveLength(1);

    // Every row of the log, unfiltered, only to an endpoint a super admin sets up.
    for (const events of [["*"], ["audit.entry"]]) {
      const refused = await run(() =>
        endpointAction(args(json(admin.cookie, "PATCH", { events }), { id: body.id })),
      );
      expect(refused.status).toBe(403);
      described("PATCH", at, refused);
    }
    const patched = await run(() =>
      endpointAction(
        args(json(admin.cookie, "PATCH", { enabled: false, events: ["team.created"] }), { id: body.id }),
      ),
    );
    expect(patched.status).toBe(200);
    described("PATCH", at, patched);
    expect(patched.body).toMatchObject({ enabled: false, events: ["team.created"] });

    const rotated = await run(() => rotateAction(args(json(admin.cookie, "POST"), { id: body.id })));
    expect(rotated.status).toBe(200);
    described("POST", `${at}/rotate-secret`, rotated);
    expect((rotated.body as { secret: string }).secret).not.toBe(body.secret);
    const one = await run(() =>
      endpointLoader(
        args(request(`/api/webhook-endpoints/${body.id}`, { cookie: admin.cookie }), { id: body.id }),
      ),
    );
    described("GET", at, one);
    expect((one.body as { secretRotatedUntil: string | null }).secretRotatedUntil).not.toBeNull();

    const queued = await run(() => testAction(args(json(admin.cookie, "POST"), { id: body.id })));
    expect(queued.status).toBe(202);
    described("POST", `${at}/send-test`, queued);
    const deliveries = await run(() =>
      deliveriesLoader(
        args(request(`/api/webhook-endpoints/${body.id}/deliveries`, { cookie: admin.cookie }), {
          id: body.id,
        }),
      ),
    );
    described("GET", `${at}/deliveries`, deliveries);
    expect((deliveries.body as { deliveries: { id: string; type: string }[] }).deliveries).toMatchObject([
      { id: (queued.body as { messageId: string }).messageId, type: "webhook.test", status: "pending" },
    ]);

    const deleted = await run(() => endpointAction(args(json(admin.cookie, "DELETE"), { id: body.id })));
    expect(deleted.status).toBe(204);
    described("DELETE", at, deleted);
    expect(await db().selectFrom("webhook_message").selectAll().execute()).toEqual([]);
    const actions = await db()
      .selectFrom("audit_log")
      .select("action")
      .where("target_id", "=", body.id)
      .orderBy("seq")
      .execute();
    expect(actions.map((a) => a.action)).toEqual([
      "webhook.endpoint.create",
      "webhook.endpoint.update",
      "webhook.endpoint.rotate",
      "webhook.endpoint.test",
      "webhook.endpoint.delete",
    ]);
  });

  it("refuses addresses it could never deliver to, and bad input, with the field named", async () => {
    const admin = await signedIn(["super_admin"]);
    const cases: [unknown, string][] = [
      [{ url: "https://10.0.0.1/h", events: ["*"] }, "url"],
      [{ url: "https://169.254.169.254/latest/meta-data", events: ["*"] }, "url"],
      [{ url: "https://[::1]/h", events: ["*"] }, "url"],
      [{ url: "http://example.com/h", events: ["*"] }, "url"], // plain http to a public host
      [{ url: "ftp://example.com/h", events: ["*"] }, "url"],
      [{ url: "https://user:pw@example.com/h", events: ["*"] }, "url"],
      [{ url: "not a url", events: ["*"] }, "url"],
      [{ url: "https://example.com/h", events: ["user.exploded"] }, "events.0"],
      [{ url: "https://example.com/h", events: [] }, "events"],
    ];
    for (const [body, field] of cases) {
      const out = await run(() => createAction(args(json(admin.cookie, "POST", body))));
      expect(out.status, JSON.stringify(body)).toBe(400);
      expect(out.body, JSON.stringify(body)).toMatchObject({ error: "invalid_request", field });
    }
    const notJson = await run(() =>
      createAction(
        args(request("/api/webhook-endpoints", { method: "POST", cookie: admin.cookie, body: "{" })),
      ),
    );
    expect(notJson.status).toBe(400);
    for (const [call, status] of [
      [() => endpointLoader(args(request("/x", { cookie: admin.cookie }), { id: "ep_missing" })), 404],
      [() => endpointAction(args(json(admin.cookie, "PATCH", { enabled: true }), { id: "ep_missing" })), 404],
      [() => retryAction(args(json(admin.cookie, "POST"), { id: "msg_missing" })), 404],
      [
        () => endpointAction(args(json(admin.cookie, "PATCH", { secret: "mine" }), { id: "ep_missing" })),
        400,
      ],
    ] as const)
      expect((await run(call)).status).toBe(status);
    expect(await db().selectFrom("webhook_endpoint").selectAll().execute()).toEqual([]);
  });

  it("refuses a body naming __proto__, constructor or prototype at any depth, or nested too deeply (issue 34)", async () => {
    const admin = await signedIn(["admin"]);
    const raw = (method: string, body: string, path = "/api/webhook-endpoints") =>
      request(path, { method, cookie: admin.cookie, headers: { "Content-Type": "application/json" }, body });
    const valid = { url: "http://127.0.0.1:9/hostile", events: ["user.created"] };
    const bodies = [
      ...hostileBodies({ ...valid, extra: "$" }),
      ...hostileBodies({ ...valid, events: "$" }),
      `{"a":${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
    ];
    for (const body of bodies) {
      const created = await run(() => createAction(args(raw("POST", body))));
      expect(created.status, body).toBe(400);
      expect(created.body, body).toMatchObject({ error: "invalid_request" });
      const patched = await run(() =>
        endpointAction(args(raw("PATCH", body, "/api/webhook-endpoints/ep_x"), { id: "ep_x" })),
      );
      expect(patched.status, body).toBe(400);
      expectPrototypesClean(body);
    }
    expect(
      await db().selectFrom("webhook_endpoint").select("id").where("url", "=", valid.url).execute(),
    ).toEqual([]);
  });

  it("refuses a host name that resolves inside, unless OUTBOUND_ALLOW_PRIVATE opens its range", async () => {
    const admin = await signedIn(["super_admin"]);
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    resetEnvCache();
    try {
      // localhost resolves to 127.0.0.1 or ::1: not a public address.
      const out = await run(() =>
        createAction(args(json(admin.cookie, "POST", { url: "https://localhost/h", events: ["*"] }))),
      );
      expect(out.status).toBe(400);
      expect(out.body).toMatchObject({ field: "url", message: expect.stringMatching(/127\.0\.0\.1|::1/) });
    } finally {
      process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.0/8";
      resetEnvCache();
    }
    expect(await db().selectFrom("webhook_endpoint").selectAll().execute()).toEqual([]);
  });

  it("subscribes nobody to events they could not read in the app", async () => {
    // settings.manage alone: no user, team, log or role events.
    const ts = new Date().toISOString();
    await db()
      .insertInto("role")
      .values({
        id: "r-settings-only",
        name: "settings_only",
        label: "Settings only",
        created_at: ts,
        updated_at: ts,
      })
      .execute();
    const perms = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "in", ["dashboard.access", "settings.manage"])
      .execute();
    await db()
      .insertInto("role_permission")
      .values(perms.map((p) => ({ role_id: "r-settings-only", permission_id: p.id })))
      .execute();
    invalidateRoles();
    const operator = await signedIn(["settings_only"]);
    for (const events of [
      ["user.created"],
      ["team.deleted"],
      ["session.signed_in"],
      ["audit.checkpoint"],
      ["*"],
    ]) {
      const out = await run(() =>
        createAction(args(json(operator.cookie, "POST", { url: "http://127.0.0.1:9/h", events }))),
      );
      expect(out.status, events[0]).toBe(403);
      expect(out.body).toMatchObject({ error: "forbidden" });
    }
    const allowed = await run(() =>
      createAction(
        args(json(operator.cookie, "POST", { url: "http://127.0.0.1:9/h", events: ["settings.updated"] })),
      ),
    );
    expect(allowed.status).toBe(201);
  });

  it("lets nobody redirect, replay, rotate, test or remove an endpoint receiving more than they may read", async () => {
    const root = await signedIn(["super_admin"]);
    const created = await run(() =>
      createAction(
        args(json(root.cookie, "POST", { url: "http://127.0.0.1:9/siem", events: ["*"], enabled: false })),
      ),
    );
    const id = (created.body as { id: string }).id;
    const admin = await signedIn(["admin"]);
    const attempts = [
      () => endpointAction(args(json(admin.cookie, "PATCH", { url: "http://127.0.0.1:8/mine" }), { id })),
      () => endpointAction(args(json(admin.cookie, "PATCH", { description: "harmless" }), { id })),
      () => endpointAction(args(json(admin.cookie, "DELETE"), { id })),
      () => rotateAction(args(json(admin.cookie, "POST"), { id })),
      () => testAction(args(json(admin.cookie, "POST"), { id })),
      () => replayAction(args(json(admin.cookie, "POST", { since: "2020-01-01T00:00:00Z" }), { id })),
    ];
    for (const attempt of attempts) expect((await run(attempt)).status).toBe(403);
    const row = await db()
      .selectFrom("webhook_endpoint")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ url: "http://127.0.0.1:9/siem", enabled: 0, description: "" });
    // A PATCH leaves out what it does not name: a paused endpoint stays paused.
    const renamed = await run(() =>
      endpointAction(args(json(root.cookie, "PATCH", { description: "SIEM" }), { id })),
    );
    expect(renamed.body).toMatchObject({ description: "SIEM", enabled: false, events: ["*"] });
  });
});

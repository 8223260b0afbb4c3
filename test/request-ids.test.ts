import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { db } from "../app/db.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../app/events/event-types";
import { currentRequestId, REQUEST_ID_HEADER, runWithRequestId } from "../app/http/request-id.server";
import { createRequestContext } from "../app/server/lifecycle.server";
import { defineTask } from "../app/tasks/definition.server";
import { httpDeliver } from "../app/tasks/delivery.server";
import { InProcessTaskRunner, setTaskRunner } from "../app/tasks/runner.server";
import { WEBHOOK_PATH } from "../app/tasks/webhook-signature.server";
import { type AppServer, startApp } from "./app-server";
import { createUser, ORIGIN, PASSWORD, setupDatabase, signedIn } from "./helpers";
import { onPostgres } from "./postgres-schema";
import { RecordingRunner } from "./tasks";

// Request ids through the app's own pipeline (decision 026): the id React Router's answer
// carries is the one on the audit rows the request wrote, on the task it started (and on that
// task's run and completion webhook), and on the error page a user would quote.

let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
});
afterAll(() => app?.close());

const idOf = (res: Response) => {
  const id = res.headers.get(REQUEST_ID_HEADER);
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  return id!;
};

/** Runs `fn` with `table` renamed away, so whatever reads it fails as a broken database would. */
async function without<T>(table: string, fn: () => Promise<T>): Promise<T> {
  // SQLite would otherwise re-check every trigger against the renamed table, and refuse.
  if (!onPostgres) await sql`pragma legacy_alter_table = on`.execute(db());
  await sql`alter table ${sql.table(table)} rename to ${sql.table(`${table}_away`)}`.execute(db());
  try {
    return await fn();
  } finally {
    await sql`alter table ${sql.table(`${table}_away`)} rename to ${sql.table(table)}`.execute(db());
  }
}

describe("answers", () => {
  it("carry a fresh X-Request-Id: a page, an API answer, a 404, a .data request", async () => {
    const ids = new Set<string>();
    for (const [path, status] of [
      ["/login", 200],
      ["/api/ping", 200],
      ["/no-such-page", 404],
      ["/api/no-such-thing", 404],
      ["/login.data", 200],
    ] as const) {
      const res = await app.fetch(path);
      expect(res.status, path).toBe(status);
      ids.add(idOf(res));
    }
    expect(ids.size).toBe(5);
  });
});

describe("audit rows", () => {
  it("written by a request carry its id: a sign-in through the login page", async () => {
    const user = await createUser({ roles: ["user"] });
    const res = await app.fetch("/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: user.email, password: PASSWORD }),
    });
    expect(res.status).toBeLessThan(400);
    const id = idOf(res);
    const rows = await db()
      .selectFrom("audit_log")
      .select(["action", "request_id"])
      .where("actor_id", "=", user.id)
      .execute();
    expect(rows).toEqual([{ action: "auth.login.succeeded", request_id: id }]);

    // The audit log shows it in the row's details.
    const admin = await signedIn(["admin"]);
    const page = await app.fetch(`/dashboard/logs?actor=${encodeURIComponent(user.email)}`, {
      cookie: admin.cookie,
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`Request: ${id}`);
  });

  it("of different requests carry different ids", async () => {
    const user = await createUser({ roles: ["user"] });
    const body = new URLSearchParams({ email: user.email, password: "wrong password" });
    const headers = { "Content-Type": "application/x-www-form-urlencoded" };
    const a = idOf(await app.fetch("/login", { method: "POST", headers, body }));
    const b = idOf(await app.fetch("/login", { method: "POST", headers, body }));
    const rows = await db()
      .selectFrom("audit_log")
      .select(["action", "request_id"])
      .where("request_id", "in", [a, b])
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.action)).toEqual(["auth.login.failed", "auth.login.failed"]);
    expect(new Set(rows.map((r) => r.request_id))).toEqual(new Set([a, b]));
  });
});

describe("audit()", () => {
  it("takes the id the code runs under (a task's webhook), else the request context's", async () => {
    const { audit } = await import("../app/audit/audit.server");
    const origin = {
      request: new Request(ORIGIN),
      context: createRequestContext({ ip: "203.0.113.1", requestId: "ctx-1" }),
    };
    await audit(origin, { action: "task.create", target: { type: "task", id: "t-ctx" } });
    await runWithRequestId("started-1", () =>
      audit(origin, { action: "task.create", target: { type: "task", id: "t-als" } }),
    );
    const rows = await db()
      .selectFrom("audit_log")
      .select(["target_id", "request_id"])
      .where("target_id", "in", ["t-ctx", "t-als"])
      .orderBy("target_id")
      .execute();
    expect(rows).toEqual([
      { target_id: "t-als", request_id: "started-1" },
      { target_id: "t-ctx", request_id: "ctx-1" },
    ]);
  });
});

/** Calls `seen` with each event published for `userId`, in the publisher's context; returns how to stop. */
async function watchPublishing(userId: string, seen: (event: SystemEvent) => void) {
  const { systemBus } =
    await app.module<typeof import("../app/events/bus.server")>("app/events/bus.server.ts");
  const bus = systemBus();
  const publish = bus.publish;
  const stage = bus.stage;
  const spy = vi.spyOn(bus, "publish").mockImplementation((channel, event) => {
    if (channel === SYSTEM_EVENT_CHANNEL && event.userId === userId) seen(event);
    return publish.call(bus, channel, event);
  });
  // A completion's event is staged in its transaction (EventBus.stage), not published after it.
  const staged = vi.spyOn(bus, "stage").mockImplementation((trx, channel, events) => {
    for (const event of events) if (channel === SYSTEM_EVENT_CHANNEL && event.userId === userId) seen(event);
    return stage.call(bus, trx, channel, events);
  });
  return () => {
    spy.mockRestore();
    staged.mockRestore();
  };
}

describe("tasks", () => {
  it("a task started by POST /api/tasks carries the request's id, as does its audit row", async () => {
    setTaskRunner(new RecordingRunner());
    const user = await signedIn(["user"]);
    const res = await app.fetch("/api/tasks", {
      method: "POST",
      cookie: user.cookie,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "report.generate", payload: { durationMs: 10 } }),
    });
    expect(res.status).toBe(202);
    const id = idOf(res);
    const { taskId } = (await res.json()) as { taskId: string };
    const task = await db().selectFrom("task").selectAll().where("id", "=", taskId).executeTakeFirstOrThrow();
    expect(task.request_id).toBe(id);
    const audit = await db().selectFrom("audit_log").selectAll().where("target_id", "=", taskId).execute();
    expect(audit).toMatchObject([{ action: "task.create", request_id: id }]);
  });

  it("its run and its completion webhook work under the id of the request that started it", async () => {
    const user = await signedIn(["user"]);
    setTaskRunner(new RecordingRunner());
    const started = await app.fetch("/api/tasks", {
      method: "POST",
      cookie: user.cookie,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "report.generate", payload: { durationMs: 10 } }),
    });
    const origin = idOf(started);
    const { taskId } = (await started.json()) as { taskId: string };

    // The webhook goes over HTTP (httpDeliver) into the app's own route; fetch is pointed at the
    // app instead of a socket, and records what the runner sent.
    const sent: Headers[] = [];
    const webhookAnswers: number[] = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      const request = new Request(url, init);
      sent.push(request.headers);
      const answer = await app.handle(request);
      webhookAnswers.push(answer.status);
      return answer;
    });
    // What the webhook's processing runs under, seen where it tells the owner (at publishing: on
    // PostgreSQL subscribers hear events on the bus's own connection, under no request).
    const processedUnder: (string | undefined)[] = [];
    const stop = await watchPublishing(user.id, (e) => {
      if (e.type === "task-completed") processedUnder.push(currentRequestId());
    });
    const ranUnder: (string | undefined)[] = [];
    const runner = new InProcessTaskRunner({
      deliver: httpDeliver(`${ORIGIN}${WEBHOOK_PATH}`),
      retryDelaysMs: [],
      definitions: () =>
        defineTask({
          type: "report.generate",
          payload: z.unknown(),
          async run() {
            ranUnder.push(currentRequestId());
            return { ok: true };
          },
        }),
    });
    try {
      // Outside any request (a queue worker, a restart), under another request's id: both
      // still run it under the id stored with the task.
      await runWithRequestId("some-other-request", () => runner.runNow(taskId));
    } finally {
      vi.unstubAllGlobals();
      stop();
    }
    expect(ranUnder).toEqual([origin]);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.get(REQUEST_ID_HEADER)).toBe(origin);
    expect(webhookAnswers).toEqual([200]);
    expect(processedUnder[0]).toBe(origin);
    const task = await db().selectFrom("task").selectAll().where("id", "=", taskId).executeTakeFirstOrThrow();
    expect(task).toMatchObject({ status: "completed", request_id: origin });
  });

  it("the webhook ignores a malformed X-Request-Id and processes under its own request's id", async () => {
    const user = await signedIn(["user"]);
    const { insertTask } = await import("../app/tasks/repository.server");
    const taskId = await insertTask({
      type: "report.generate",
      userId: user.id,
      payload: {},
      requestId: "r-1",
    });
    const { signWebhook } = await import("../app/tasks/webhook-signature.server");
    const body = JSON.stringify({ taskId, status: "completed", result: {} });
    const processedUnder: (string | undefined)[] = [];
    const stop = await watchPublishing(user.id, () => {
      processedUnder.push(currentRequestId());
    });
    try {
      const res = await app.fetch(WEBHOOK_PATH, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...signWebhook(taskId, body),
          [REQUEST_ID_HEADER]: "bad id",
        },
        body,
      });
      expect(res.status).toBe(200);
      expect(processedUnder[0]).toBe(idOf(res));
    } finally {
      stop();
    }
  });
});

describe("error pages", () => {
  it("a 500 where even the root loader failed shows the request's reference, in its meta and the error log", async () => {
    const config = await app.module<typeof import("../app/system-settings/system-config.server")>(
      "app/system-settings/system-config.server.ts",
    );
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await without("system_setting", async () => {
        await config.clearSystemConfigCache();
        return app.fetch("/login");
      });
      expect(res.status).toBe(500);
      const id = idOf(res);
      const html = await res.text();
      expect(html).toContain(`Reference: ${id}`);
      expect(html).toContain(`<meta name="request-id" content="${id}"/>`);
      // React Router logs the loader's error (entry.server's handleError): it names the request.
      expect(errors).toHaveBeenCalledWith(`[requestId=${id}]`, expect.anything());
    } finally {
      errors.mockRestore();
      await config.clearSystemConfigCache();
    }
  });

  it("the dashboard's own error page shows it too, in German for a German reader", async () => {
    const user = await signedIn(["user"]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      for (const [language, text] of [
        ["en", "Reference: "],
        ["de", "Referenz: "],
      ] as const) {
        const res = await without("notification", () =>
          app.fetch("/dashboard", { cookie: user.cookie, headers: { "Accept-Language": language } }),
        );
        expect(res.status).toBe(500);
        const html = await res.text();
        expect(html).toContain('data-testid="error"');
        expect(html).toContain(`${text}${idOf(res)}`);
      }
    } finally {
      errors.mockRestore();
    }
  });

  it("a 404 page shows its reference", async () => {
    const res = await app.fetch("/no-such-page");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain(`Reference: ${idOf(res)}`);
  });
});

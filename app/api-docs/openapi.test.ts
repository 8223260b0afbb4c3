import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { startApp } from "../../test/app-server";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { ROUTE_FILES } from "../../test/route-files";
import { RecordingRunner } from "../../test/tasks";
import routes from "../routes";
import { loader as openapi } from "../routes/api.openapi";
import * as rolesRoute from "../routes/api.roles";
import * as tasksRoute from "../routes/api.tasks";
import * as taskRoute from "../routes/api.tasks.$id";
import * as endpointsRoute from "../routes/api.webhook-endpoints";
import { loader as referencePage } from "../routes/dashboard.api-reference/route";
import { setTaskRunner } from "../tasks/runner.server";
import { answerProblem } from "./check-answer";
import { OPERATIONS, UNDESCRIBED } from "./operations.server";

// GET /api/openapi.json: valid OpenAPI 3.1, every API route in it, and the running code's answers
// allowed by it (issue "Runs where operators run things", §2).

type Doc = { openapi: string; paths: Record<string, Record<string, unknown>> };
let doc: Doc;

beforeAll(async () => {
  await setupDatabase();
  // The started task is only recorded: this file checks answers, not runs.
  setTaskRunner(new RecordingRunner());
  const res = await run(() => openapi());
  expect(res.status).toBe(200);
  doc = res.body as Doc;
});

describe("the API description", () => {
  it("is valid OpenAPI 3.1", async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("is served to anyone, through the whole request pipeline (no sign-in: integrators fetch it first)", async () => {
    const app = await startApp();
    const res = await app.fetch("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(((await res.json()) as Doc).openapi).toBe("3.1.0");
  });

  it("names the endpoints integrators use, and no internal one", () => {
    for (const path of [
      "/api/tasks",
      "/api/tasks/{id}",
      "/api/events",
      "/api/webhook-endpoints",
      "/api/users/{id}/roles",
      "/api/roles/{name}",
      "/scim/v2/Users",
    ])
      expect(Object.keys(doc.paths)).toContain(path);
    expect(Object.keys(doc.paths).filter((p) => p.includes("webhooks/tasks"))).toEqual([]);
  });

  it("describes every /api and SCIM route of app/routes.ts, or says why not", () => {
    const api = [...ROUTE_FILES.keys()].filter((id) => /^routes\/(api\.|scim\.)/.test(id));
    const described = new Set([...OPERATIONS.map((o) => o.route), ...Object.keys(UNDESCRIBED)]);
    expect(api.filter((id) => !described.has(id))).toEqual([]);
    // And nothing described that is no route.
    expect([...described].filter((id) => !ROUTE_FILES.has(id))).toEqual([]);
    expect(routes.length).toBeGreaterThan(0);
  });

  it("allows what the running code answers, and catches what it does not", async () => {
    const admin = await signedIn(["super_admin"]);
    const get = (route: { loader: (a: never) => unknown }, path: string, params = {}) =>
      run(() => route.loader(args(request(path, { cookie: admin.cookie }), params)));
    const post = (route: { action: (a: never) => unknown }, path: string, body: unknown) =>
      run(() =>
        route.action(
          args(
            request(path, {
              cookie: admin.cookie,
              method: "POST",
              body: JSON.stringify(body),
              headers: { "Content-Type": "application/json" },
            }),
          ),
        ),
      );
    const started = await post(tasksRoute, "/api/tasks", {
      type: "report.generate",
      payload: { durationMs: 1 },
    });
    const answers: [string, string, { status: number; body: unknown }][] = [
      ["GET", "/api/roles", await get(rolesRoute, "/api/roles")],
      ["GET", "/api/tasks", await get(tasksRoute, "/api/tasks")],
      ["GET", "/api/tasks?limit=0", await get(tasksRoute, "/api/tasks?limit=0")],
      ["POST", "/api/tasks", started],
      ["POST", "/api/tasks", await post(tasksRoute, "/api/tasks", { type: "nope" })],
      ["GET", "/api/webhook-endpoints", await get(endpointsRoute, "/api/webhook-endpoints")],
    ];
    const id = (started.body as { taskId: string }).taskId;
    answers.push(["GET", `/api/tasks/${id}`, await get(taskRoute, `/api/tasks/${id}`, { id })]);
    for (const [method, path, res] of answers)
      expect(answerProblem(method, path, res.status, res.body)).toBeNull();
    // The check itself: a status or a body the description does not allow is named.
    expect(answerProblem("GET", "/api/tasks", 418, {})).toMatch(/418 is not a documented answer/);
    expect(answerProblem("GET", "/api/roles", 200, { roles: [{ name: 1 }] })).toMatch(/does not match/);
    expect(answerProblem("GET", "/api/nowhere", 200, {})).toMatch(/not in the description/);
  });
});

describe("the API reference page", () => {
  it("shows every described operation to anyone signed in, by tag; nobody else", async () => {
    const user = await signedIn(["user"]);
    const page = await run(() =>
      referencePage(args(request("/dashboard/api-reference", { cookie: user.cookie }))),
    );
    expect(page.status).toBe(200);
    const tags = (page.body as { tags: { tag: string; operations: { method: string; path: string }[] }[] })
      .tags;
    const listed = tags.flatMap((t) => t.operations.map((o) => `${o.method} ${o.path}`));
    expect(listed).toHaveLength(OPERATIONS.length);
    expect(listed).toContain("POST /api/tasks");
    const anonymous = await run(() => referencePage(args(request("/dashboard/api-reference"))));
    expect(anonymous.status).toBe(302);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { RecordingRunner } from "../../test/tasks";
import { db } from "../db.server";
import { action } from "../routes/api.tasks";
import { MAX_PAYLOAD_DEPTH, payloadProblem } from "./payload";
import { setTaskRunner } from "./runner.server";

beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(new RecordingRunner());
});

function post(cookie: string, raw: string) {
  return run(() =>
    action(
      args(
        request("/api/tasks", {
          method: "POST",
          cookie,
          body: raw,
          headers: { "Content-Type": "application/json" },
        }),
      ),
    ),
  );
}
const tasks = () => db().selectFrom("task").select("id").execute();
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("task payload shape", () => {
  it("refuses a payload nested 30,000 deep with 400 invalid_request; nothing stored", async () => {
    const user = await signedIn(["user"]);
    const before = await tasks();
    for (const body of [
      `{"type":"report.generate","payload":${nested(30_000)}}`,
      `{"type":"report.generate","payload":{"durationMs":10,"extra":${nested(30_000)}}}`,
      `{"type":"no.such.type","payload":${nested(30_000)}}`,
    ]) {
      const out = await post(user.cookie, body);
      expect(out.status).toBe(400);
      expect(out.body).toMatchObject({ error: "invalid_request" });
    }
    expect(await tasks()).toEqual(before);
  });

  it("refuses a NUL character in any string or key of the payload, on every database; nothing stored", async () => {
    const user = await signedIn(["user"]);
    const before = await tasks();
    for (const payload of [
      '{"durationMs":10,"note":"a\\u0000b"}',
      '{"durationMs":10,"a\\u0000":1}',
      '{"durationMs":10,"deep":[{"x":["\\u0000"]}]}',
    ]) {
      const out = await post(user.cookie, `{"type":"report.generate","payload":${payload}}`);
      expect(out.status, payload).toBe(400);
      expect(out.body).toMatchObject({ error: "invalid_request" });
    }
    expect(await tasks()).toEqual(before);
  });

  it("measures depth without recursion, and lets ordinary payloads through", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(payloadProblem(deep)).toMatch(/nested/);
    let limit: unknown = 1;
    for (let i = 0; i < MAX_PAYLOAD_DEPTH; i++) limit = { a: limit };
    expect(payloadProblem(limit)).toBeNull();
    expect(payloadProblem({ a: limit })).toMatch(/nested/);
    expect(payloadProblem({ durationMs: 10, tags: ["a", "b"], ok: true, none: null })).toBeNull();
    expect(payloadProblem(undefined)).toBeNull();
  });
});

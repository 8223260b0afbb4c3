import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { args, request, run, sessionCookieFor, setupDatabase, signedIn } from "../../test/helpers";
import { revokeMySessions } from "../auth/account.server";
import { getSessionUser, sessionHandle } from "../auth/session.server";
import { loader } from "../routes/api.events";
import { revokeSession } from "../users/users.server";
import { systemBus } from "./bus.server";
import { SYSTEM_EVENT_CHANNEL } from "./event-types";
import { closeAllStreams } from "./stream.server";

beforeAll(setupDatabase);
afterAll(() => closeAllStreams());

describe("GET /api/events", () => {
  it("answers 401 JSON without a session", async () => {
    expect(await run(() => loader(args(request("/api/events"))))).toMatchObject({
      status: 401,
      body: { error: "unauthorized" },
    });
  });

  it("streams the caller's own events only, and unsubscribes when the client aborts", async () => {
    const a = await signedIn(["user"]);
    const b = await signedIn(["user"]);
    const controller = new AbortController();
    const req = new Request("http://localhost:3000/api/events", {
      headers: { Cookie: a.cookie },
      signal: controller.signal,
    });
    const before = systemBus().subscriberCount();
    const response = (await loader(args(req))) as Response;
    expect(response.headers.get("Content-Type")).toBe("text/event-stream");
    expect(systemBus().subscriberCount()).toBe(before + 1);

    await systemBus().publish(SYSTEM_EVENT_CHANNEL, {
      type: "task-completed",
      userId: b.id,
      taskId: "b-task",
      status: "completed",
    });
    await systemBus().publish(SYSTEM_EVENT_CHANNEL, {
      type: "task-completed",
      userId: a.id,
      taskId: "a-task",
      status: "completed",
    });
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("a-task")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain("event: task-completed");
    expect(text).not.toContain("b-task");

    controller.abort();
    expect(systemBus().subscriberCount()).toBe(before);
  });

  it("holds at most 10 streams per user: the 11th ends that user's oldest, another user is unaffected", async () => {
    const a = await signedIn(["guest"]);
    const b = await signedIn(["guest"]);
    const open = (cookie: string) =>
      loader(
        args(new Request("http://localhost:3000/api/events", { headers: { Cookie: cookie } })),
      ) as Promise<Response>;
    const before = systemBus().subscriberCount();
    const theirs = await open(b.cookie);
    const mine: Response[] = [];
    for (let i = 0; i < 11; i++) mine.push(await open(a.cookie));
    expect(systemBus().subscriberCount()).toBe(before + 1 + 10);

    const first = await mine[0]!.text(); // ends: the stream was closed
    expect(first).toContain("event: evicted");
    await systemBus().publish(SYSTEM_EVENT_CHANNEL, {
      type: "task-completed",
      userId: b.id,
      taskId: "b1",
      status: "completed",
    });
    const reader = theirs.body!.getReader();
    let text = "";
    while (!text.includes("b1")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).not.toContain("evicted");
  });

  it("ends the stream of a session that is signed out from elsewhere (own 'sign out others', an admin's revoke)", async () => {
    const admin = await signedIn(["admin"]);
    for (const revoke of ["mine", "admin"] as const) {
      const a = await signedIn(["user"]);
      const elsewhere = await sessionCookieFor(a.id);
      const before = systemBus().subscriberCount();
      const stream = (await loader(
        args(new Request("http://localhost:3000/api/events", { headers: { Cookie: a.cookie } })),
      )) as Response;
      expect(systemBus().subscriberCount()).toBe(before + 1);
      const reader = stream.body!.getReader();
      await reader.read(); // the opening ping

      const session = (cookie: string) =>
        getSessionUser({ request: new Request("http://localhost:3000/", { headers: { Cookie: cookie } }) });
      if (revoke === "mine") {
        expect(await revokeMySessions((await session(elsewhere))!, "others", args(request("/")))).toBe(1);
      } else {
        const victim = await session(a.cookie);
        const actor = (await session(admin.cookie))!;
        await revokeSession(
          actor,
          { userId: a.id, handle: sessionHandle(victim!.sessionId) },
          args(request("/")),
        );
      }
      // The revoked browser's stream ends (it reconnects and gets 401); no more events reach it.
      let done = false;
      while (!done) done = (await reader.read()).done;
      expect(systemBus().subscriberCount()).toBe(before);
    }
  });
});

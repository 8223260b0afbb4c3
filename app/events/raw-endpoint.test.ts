import type net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setupDatabase, signedIn } from "../../test/helpers";
import { dechunk, eventually, type Listening, listen, rawGet, wholeBody } from "../../test/support/sse";
import { endAllSessions } from "../auth/session.server";
import { db } from "../db.server";
import { serveEventStream } from "../server/event-stream.server";
import { systemBus } from "./bus.server";
import { SYSTEM_EVENT_CHANNEL } from "./event-types";
import { closeAllStreams, EVICTED_EVENT, openStreamCount, PING_INTERVAL_MS } from "./stream.server";

// GET /api/events as the production server answers it: on node's own request and response
// (app/server/http-server.server.ts hands it to serveEventStream), through real sockets.

let server: Listening;
beforeAll(async () => {
  await setupDatabase();
  server = await listen((req, res) => serveEventStream(req, res, req.socket.remoteAddress ?? "unknown"));
});
afterEach(() => {
  closeAllStreams();
  vi.useRealTimers();
});
afterAll(() => server.close());

const open = (cookie?: string, headers: Record<string, string> = {}) =>
  rawGet(server.port, "/api/events", cookie ? { Cookie: cookie, ...headers } : headers);
const body = async (s: ReturnType<typeof open>) => JSON.parse(await wholeBody(s));
const complete = (userId: string, taskId: string) =>
  systemBus().publish(SYSTEM_EVENT_CHANNEL, { type: "task-completed", userId, taskId, status: "completed" });

function expectSecurityHeaders(headers: Map<string, string[]>) {
  expect(headers.get("content-security-policy")?.[0]).toMatch(
    /^default-src 'self'; script-src 'self' 'nonce-/,
  );
  expect(headers.get("x-content-type-options")).toEqual(["nosniff"]);
  expect(headers.get("x-frame-options")).toEqual(["SAMEORIGIN"]);
  expect(headers.get("referrer-policy")).toEqual(["strict-origin-when-cross-origin"]);
}

describe("GET /api/events on the socket", () => {
  it("answers 401 JSON without a session, with a forged cookie, a revoked session or a disabled user", async () => {
    const revoked = await signedIn(["user"]);
    await endAllSessions(revoked.id);
    const disabled = await signedIn(["user"]);
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", disabled.id).execute();
    const forged = `${revoked.cookie.slice(0, -3)}abc`;
    for (const cookie of [undefined, "__session=nonsense", forged, revoked.cookie, disabled.cookie]) {
      const s = open(cookie);
      expect(await body(s)).toEqual({ error: "unauthorized" });
      expect(s.status()).toBe(401);
      expect(s.headers().get("content-type")).toEqual(["application/json"]);
      expectSecurityHeaders(s.headers());
    }
    expect(openStreamCount()).toBe(0);
  });

  it("answers 403 as the access gate does: no dashboard.access, or a password to change first", async () => {
    const guest = await signedIn(["guest"]);
    const g = open(guest.cookie);
    expect(await body(g)).toEqual({ error: "forbidden", permission: "dashboard.access" });
    expect(g.status()).toBe(403);
    const changing = await signedIn(["user"]);
    await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", changing.id).execute();
    const c = open(changing.cookie);
    expect(await body(c)).toEqual({ error: "password_change_required" });
    expect(c.status()).toBe(403);
    expect(openStreamCount()).toBe(0);
  });

  it("answers 400 to a request without a usable Host, like the server's guard", async () => {
    const s = rawGet(server.port, "/api/events", { Host: "bad/host" });
    await s.until((t) => t.includes("Host header"));
    expect(s.status()).toBe(400);
  });

  it("streams the caller's own events, with the security headers, the renewed cookie and an opening ping", async () => {
    const a = await signedIn(["user"]);
    const b = await signedIn(["user"]);
    // Past half its lifetime: the session slides, and the stream's answer carries the new cookie.
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    await db().updateTable("session").set({ expires_at: soon }).where("user_id", "=", a.id).execute();
    const mine = open(a.cookie);
    const theirs = open(b.cookie);
    // `retry:` first: the browser waits that long (2-3 s, jittered) before reconnecting.
    await mine.until((t) => /^retry: \d{4}\nevent: ping\ndata: /.test(dechunk(t)));
    await theirs.until((t) => t.includes("event: ping"));
    const headers = mine.headers();
    expect(mine.status()).toBe(200);
    expect(headers.get("content-type")).toEqual(["text/event-stream"]);
    expect(headers.get("cache-control")).toEqual(["no-cache, no-transform"]);
    expect(headers.get("x-accel-buffering")).toEqual(["no"]);
    expectSecurityHeaders(headers);
    expect(headers.get("set-cookie")?.[0]).toMatch(/^__session=.*; HttpOnly; SameSite=Lax$/);

    complete(b.id, "b-task");
    complete(a.id, "a-task");
    const text = dechunk(await mine.until((t) => t.includes("a-task")));
    expect(text).toMatch(
      /id: \d+\nevent: task-completed\ndata: \{"type":"task-completed","userId":"[^"]+","taskId":"a-task","status":"completed"\}\n\n$/,
    );
    expect(text).not.toContain("b-task");
    await theirs.until((t) => t.includes("b-task"));
  });

  it("holds ten streams a user: the 11th ends the oldest with `evicted`; another user is untouched", async () => {
    const a = await signedIn(["user"]);
    const b = await signedIn(["user"]);
    const before = systemBus().subscriberCount();
    const theirs = open(b.cookie);
    await theirs.until((t) => t.includes("event: ping"));
    const mine = [];
    for (let i = 0; i < 11; i++) {
      const s = open(a.cookie);
      await s.until((t) => t.includes("event: ping"));
      mine.push(s);
    }
    expect(systemBus().subscriberCount()).toBe(before + 11);
    const oldest = await mine[0]!.until((t) => t.endsWith("\r\n0\r\n\r\n"));
    expect(dechunk(oldest)).toContain(`event: ${EVICTED_EVENT}\ndata: too many open streams\n\n`);
    complete(b.id, "b1");
    expect(await theirs.until((t) => t.includes("b1"))).not.toContain(EVICTED_EVENT);
  });

  it("pings every 15 s", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const a = await signedIn(["user"]);
    const s = open(a.cookie);
    await s.until((t) => t.includes("event: ping"));
    vi.advanceTimersByTime(PING_INTERVAL_MS - 200);
    vi.advanceTimersByTime(200);
    const text = await s.until((t) => dechunk(t).split("event: ping\n").length === 3);
    expect(dechunk(text)).toMatch(/^retry: \d+\n(event: ping\ndata: \S+\n\n){2}$/);
  });

  it("ends the stream at once when the user's sessions end elsewhere", async () => {
    const a = await signedIn(["user"]);
    const s = open(a.cookie);
    await s.until((t) => t.includes("event: ping"));
    await endAllSessions(a.id);
    await s.until((t) => t.endsWith("\r\n0\r\n\r\n"));
    expect(openStreamCount()).toBe(0);
  });

  it("opens 2,000 streams at once and lets every one go when their sockets drop", {
    timeout: 120_000,
  }, async () => {
    const users = await Promise.all(Array.from({ length: 200 }, () => signedIn(["user"])));
    const before = systemBus().subscriberCount();
    const sockets: net.Socket[] = [];
    let next = 0;
    const statuses: string[] = [];
    async function worker() {
      while (next < 2_000) {
        const s = open(users[next++ % users.length]!.cookie);
        sockets.push(s.socket);
        await s.until((t) => t.includes("event: ping") || t.length > 12);
        statuses.push(s.text().slice(9, 12));
      }
    }
    await Promise.all(Array.from({ length: 250 }, worker));
    expect(statuses.filter((x) => x !== "200")).toEqual([]);
    expect(systemBus().subscriberCount()).toBe(before + 2_000);
    expect(openStreamCount()).toBe(2_000);
    for (const [i, socket] of sockets.entries()) i % 2 ? socket.destroy() : socket.resetAndDestroy();
    expect(await eventually(() => systemBus().subscriberCount(), before, 20_000)).toBe(before);
    expect(openStreamCount()).toBe(0);
  });
});

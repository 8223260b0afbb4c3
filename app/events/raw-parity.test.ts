import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { setupDatabase, signedIn } from "../../test/helpers";
import { dechunk, type Listening, listen, type RawStream, rawGet, wholeBody } from "../../test/support/sse";
import { invalidateSessions } from "../auth/session-cache.server";
import { db } from "../db.server";

// The production server answers GET /api/events before React Router
// (app/server/http-server.server.ts); the route stays for the dev server. Both must give the same answer: this
// asks each, for every kind of caller, through the real pipelines of one app instance.

let app: AppServer;
let server: Listening;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
  const raw = await app.module<typeof import("../server/event-stream.server")>(
    "app/server/event-stream.server.ts",
  );
  server = await listen((req, res) => raw.serveEventStream(req, res, "203.0.113.9"));
});
afterAll(async () => {
  const streams = await app.module<typeof import("./stream.server")>("app/events/stream.server.ts");
  streams.closeAllStreams();
  await server.close();
  await app.close();
});

// What node adds to any response on the wire, which the route's Response never carries.
const WIRE = new Set(["date", "keep-alive", "content-length", "transfer-encoding"]);
const normal = (name: string, value: string) =>
  name === "content-security-policy"
    ? value.replace(/'nonce-[^']+'/, "'nonce-N'")
    : name === "set-cookie"
      ? value.replace(/Expires=[^;]+/, "Expires=E")
      : name === "x-request-id" // one per request (decision 026): both carry one
        ? value.replace(/^[0-9a-f-]{36}$/, "ID")
        : value;

function routeHeaders(response: Response): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of response.headers)
    if (name !== "set-cookie") out[name] = [...(out[name] ?? []), normal(name, value)];
  const cookies = response.headers.getSetCookie();
  if (cookies.length) out["set-cookie"] = cookies.map((c) => normal("set-cookie", c));
  return out;
}

function rawHeaders(stream: RawStream, route: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, values] of stream.headers()) {
    // Node says keep-alive on every HTTP/1.1 answer; the route's stream says it itself.
    if (WIRE.has(name) || (name === "connection" && !route.connection)) continue;
    out[name] = values.map((v) => normal(name, v));
  }
  return out;
}

async function both(cookie?: string) {
  const response = await app.fetch("/api/events", { cookie });
  const route = routeHeaders(response);
  const stream = rawGet(server.port, "/api/events", cookie ? { Cookie: cookie } : {});
  const streaming = response.headers.get("Content-Type") === "text/event-stream";
  const routeBody = streaming ? "" : await response.text();
  if (streaming) await response.body?.cancel();
  const rawBody = streaming ? "" : await wholeBody(stream);
  if (streaming) await stream.until((t) => t.includes("event: ping"));
  stream.socket.destroy();
  return {
    route: { status: response.status, headers: route, body: routeBody },
    raw: { status: stream.status(), headers: rawHeaders(stream, route), body: rawBody },
  };
}

describe("GET /api/events: the raw handler answers as the React Router route", () => {
  it("refuses alike: no session, a forged cookie, no dashboard.access, a password to change", async () => {
    const guest = await signedIn(["guest"]);
    const changing = await signedIn(["user"]);
    await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", changing.id).execute();
    for (const [cookie, status] of [
      [undefined, 401],
      ["__session=forged", 401],
      [guest.cookie, 403],
      [changing.cookie, 403],
    ] as const) {
      const { route, raw } = await both(cookie);
      expect(route.status).toBe(status);
      expect(raw).toEqual(route);
    }
  });

  it("opens alike: the same headers, security headers and renewed session cookie included", async () => {
    const user = await signedIn(["user"]);
    // Written behind the app's back, so the session cache is told, as the app's own writes do.
    const soon = async () => {
      await db()
        .updateTable("session")
        .set({ expires_at: new Date(Date.now() + 3_600_000).toISOString() })
        .where("user_id", "=", user.id)
        .execute();
      await invalidateSessions();
    };
    await soon();
    // Each asks while the session needs renewing, so both answers carry a Set-Cookie.
    const response = await app.fetch("/api/events", { cookie: user.cookie });
    const route = routeHeaders(response);
    await response.body?.cancel();
    await soon();
    const stream = rawGet(server.port, "/api/events", { Cookie: user.cookie });
    await stream.until((t) => t.includes("event: ping"));
    stream.socket.destroy();
    expect(response.status).toBe(200);
    expect(route["set-cookie"]).toHaveLength(1);
    expect(stream.status()).toBe(200);
    expect(rawHeaders(stream, route)).toEqual(route);

    // Without a renewal, neither sends a cookie.
    const { route: plain, raw } = await both(user.cookie);
    expect(plain.headers["set-cookie"]).toBeUndefined();
    expect(raw).toEqual(plain);
  });

  it("replays alike after Last-Event-ID (header or ?lastEventId=), and ignores an id that is not one", async () => {
    const user = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    const { systemBus } = await app.module<typeof import("./bus.server")>("app/events/bus.server.ts");
    const done = (userId: string, taskId: string) =>
      ({ type: "task-completed", userId, taskId, status: "completed" }) as const;
    await systemBus().publish("system-event", done(user.id, "seen"));
    const [seen] = await db()
      .selectFrom("event_log")
      .select("id")
      .where("user_id", "=", user.id)
      .orderBy("id", "desc")
      .execute();
    await systemBus().publishMany("system-event", [
      done(user.id, "missed-1"),
      done(other.id, "not-yours"),
      done(user.id, "missed-2"),
    ]);
    // The frames after the opening ping: event ids and data, the retry's jitter and ping times aside.
    const framesOf = (text: string) =>
      text
        .split("\n\n")
        .filter((f) => f && !f.includes("event: ping"))
        .map((f) => f.replace(/^retry: \d+\n/, ""));
    const ask = async (headers: Record<string, string>, query: string, until: (t: string) => boolean) => {
      const response = await app.fetch(`/api/events${query}`, { cookie: user.cookie, headers });
      const reader = response.body!.getReader();
      let routeText = "";
      while (!until(routeText)) routeText += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const stream = rawGet(server.port, `/api/events${query}`, { Cookie: user.cookie, ...headers });
      const rawText = dechunk(await stream.until((t) => until(dechunk(t))));
      stream.socket.destroy();
      expect(response.status).toBe(200);
      expect(stream.status()).toBe(200);
      return { route: framesOf(routeText), raw: framesOf(rawText) };
    };
    const replayed = (t: string) => t.includes("missed-2");
    const byHeader = await ask({ "Last-Event-ID": String(seen!.id) }, "", replayed);
    expect(byHeader.raw).toEqual(byHeader.route);
    expect(byHeader.route.map((f) => JSON.parse(f.split("data: ")[1]!).taskId)).toEqual([
      "missed-1",
      "missed-2",
    ]);
    expect(byHeader.route.every((f) => /^id: \d+\nevent: task-completed\n/.test(f))).toBe(true);
    const byQuery = await ask({}, `?lastEventId=${seen!.id}`, replayed);
    expect(byQuery).toEqual(byHeader);

    // Not an id: the stream opens as a fresh one (200, the opening ping, then at most the bare
    // `id:` of the user's newest event), nothing replayed.
    const opened = (t: string) => t.includes("event: ping");
    const events = (frames: string[]) => frames.filter((f) => f.includes("event:"));
    for (const bad of ["abc", "-1", "99999999999999999999999", "1;drop", "0"]) {
      const fresh = await ask({ "Last-Event-ID": bad }, `?lastEventId=${encodeURIComponent(bad)}`, opened);
      expect({ route: events(fresh.route), raw: events(fresh.raw) }).toEqual({ route: [], raw: [] });
    }
    // An id past the newest is one this client cannot have seen: it reconciles, and is sent no event.
    const ahead = await ask({ "Last-Event-ID": String(seen!.id + 1_000_000) }, "", (t) =>
      t.includes("reconcile"),
    );
    expect(ahead.raw).toEqual(ahead.route);
    expect(ahead.route.join("")).not.toContain("task-completed");
    // The other user, asking from before all of it, is sent theirs only.
    const theirs = rawGet(server.port, "/api/events", {
      Cookie: other.cookie,
      "Last-Event-ID": String(seen!.id),
    });
    const text = dechunk(await theirs.until((t) => dechunk(t).includes("not-yours")));
    theirs.socket.destroy();
    expect(text).not.toContain("missed");
  });
});

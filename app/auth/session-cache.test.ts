import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startApp } from "../../test/app-server";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
import { revokeSession, setUserStatus, updateUser } from "../users/users.server";
import { revokeMySessions, updateProfile } from "./account.server";
import { requirePermission, requireUser } from "./guard.server";
import { getSessionUser, sessionHandle } from "./session.server";

// Sessions are read once and kept in process (session-cache.server.ts). Every change that could
// alter who the caller is must show on the very next request: here through the domain functions
// the pages call, and on another instance of the app modules (test/app-server.ts) whose cache is
// cleared through the cluster link. Across processes on PostgreSQL: test/two-instances.test.ts.

beforeAll(setupDatabase);
afterEach(() => {
  vi.useRealTimers();
});

const origin = () => ({ request: request("/dashboard/users") });
const caller = (cookie: string) => getSessionUser(args(request("/dashboard", { cookie })));
const mayRead = async (cookie: string) =>
  (await run(() => requirePermission(args(request("/api/x", { cookie })), "user.read"))).status;

async function admin() {
  const a = await signedIn(["super_admin"]);
  return (await caller(a.cookie))!;
}

describe("the session cache", () => {
  it("serves a session from memory once read", async () => {
    const u = await signedIn(["user"]);
    expect((await caller(u.cookie))?.id).toBe(u.id);
    const spy = vi.spyOn(db(), "selectFrom");
    expect((await caller(u.cookie))?.id).toBe(u.id);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it("applies a role change on the next request", async () => {
    const actor = await admin();
    const u = await signedIn(["user"]);
    expect(await mayRead(u.cookie)).toBe(403);
    const adminRole = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "admin")
      .executeTakeFirstOrThrow();
    await updateUser(actor, { id: u.id, name: u.name, email: u.email, roles: [adminRole.id] }, origin());
    expect(await mayRead(u.cookie)).toBe(200);
    await updateUser(actor, { id: u.id, name: u.name, email: u.email, roles: [] }, origin());
    expect(await mayRead(u.cookie)).toBe(403);
  });

  it("signs a disabled user out on the next request", async () => {
    const actor = await admin();
    const u = await signedIn(["user"]);
    expect((await caller(u.cookie))?.id).toBe(u.id);
    await setUserStatus(actor, { id: u.id, status: "disabled" }, origin());
    expect(await caller(u.cookie)).toBeNull();
    expect((await run(() => requireUser(args(request("/api/x", { cookie: u.cookie }))))).status).toBe(401);
  });

  it("ends a revoked session on the next request, by an admin or by its owner", async () => {
    const actor = await admin();
    const u = await signedIn(["user"]);
    expect(await caller(u.cookie)).not.toBeNull();
    const sessionId = (await caller(u.cookie))!.sessionId;
    await revokeSession(actor, { userId: u.id, handle: sessionHandle(sessionId) }, origin());
    expect(await caller(u.cookie)).toBeNull();

    const v = await signedIn(["user"]);
    const other = (await import("../../test/helpers")).sessionCookieFor(v.id);
    const otherCookie = await other;
    const me = (await caller(v.cookie))!;
    expect(await caller(otherCookie)).not.toBeNull();
    await revokeMySessions(me, "others", origin());
    expect(await caller(otherCookie)).toBeNull();
    expect(await caller(v.cookie)).not.toBeNull();
  });

  it("shows a new name on the next request", async () => {
    const u = await signedIn(["user"]);
    const me = (await caller(u.cookie))!;
    await updateProfile(me, { name: "Renamed Person" }, origin());
    expect((await caller(u.cookie))?.name).toBe("Renamed Person");
  });

  it("does not serve a session past its expiry from memory", async () => {
    const u = await signedIn(["user"]);
    expect(await caller(u.cookie)).not.toBeNull();
    const row = await db()
      .selectFrom("session")
      .select("expires_at")
      .where("user_id", "=", u.id)
      .executeTakeFirstOrThrow();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse(row.expires_at) + 1000);
    expect(await caller(u.cookie)).toBeNull();
  });

  it("still refuses a forged cookie after the genuine one was verified", async () => {
    const u = await signedIn(["user"]);
    expect(await caller(u.cookie)).not.toBeNull();
    // The first character of the signature, changed.
    const forged = u.cookie.replace(/\.(.)/, (_, c: string) => `.${c === "A" ? "B" : "A"}`);
    expect(forged).not.toBe(u.cookie);
    expect(await caller(forged)).toBeNull();
  });
});

describe("the session cache of another app instance", () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    app = await startApp({ separateInstance: true });
  });
  afterAll(() => app?.close());

  it("is cleared by a change made through this one", async () => {
    const actor = await admin();
    const u = await signedIn(["user"]);
    const readUsers = () => app.fetch("/api/tasks", { cookie: u.cookie });
    expect((await readUsers()).status).toBe(200); // cached over there now
    await setUserStatus(actor, { id: u.id, status: "disabled" }, origin());
    expect((await readUsers()).status).toBe(401);
  });
});

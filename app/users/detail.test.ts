import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  args,
  createUser,
  request,
  run,
  sessionCookieFor,
  setupDatabase,
  signedIn,
} from "../../test/helpers";
import { db, now } from "../db.server";
import { loader } from "../routes/dashboard.users.$id";

beforeAll(setupDatabase);

type Page = { sessions: { ip: string | null }[] | null; audit: unknown[] | null };

async function pageOf(viewerCookie: string, userId: string) {
  const out = await run(() =>
    loader(args(request(`/dashboard/users/${userId}`, { cookie: viewerCookie }), { id: userId })),
  );
  expect(out.status).toBe(200);
  return out.body as Page;
}

/** Someone with a session from a known IP and an audit row about them. */
async function target() {
  const user = await createUser({ roles: ["user"] });
  await sessionCookieFor(user.id); // the helper's context gives the session IP 203.0.113.7
  await db()
    .insertInto("audit_log")
    .values({
      id: randomUUID(),
      actor_id: user.id,
      actor_email: user.email,
      action: "auth.login",
      target_type: "user",
      target_id: user.id,
      details: null,
      ip: "198.51.100.23",
      user_agent: null,
      created_at: now(),
    })
    .execute();
  return user;
}

describe("user page: sessions and IPs", () => {
  it("are hidden from a manager (user.read without log.read)", async () => {
    const someone = await target();
    const manager = await signedIn(["manager"]);
    const page = await pageOf(manager.cookie, someone.id);
    expect(page.sessions).toBeNull();
    expect(page.audit).toBeNull();
    const text = JSON.stringify(page);
    expect(text).not.toContain("203.0.113.7");
    expect(text).not.toContain("198.51.100.23");
  });

  it("are shown to an admin (log.read)", async () => {
    const someone = await target();
    const admin = await signedIn(["admin"]);
    const page = await pageOf(admin.cookie, someone.id);
    expect(page.sessions).toEqual([expect.objectContaining({ ip: "203.0.113.7" })]);
    expect(page.audit).toHaveLength(1);
  });

  it("shows an account its own sessions, but not the audit trail it lacks log.read for", async () => {
    const manager = await signedIn(["manager"]);
    const page = await pageOf(manager.cookie, manager.id);
    expect(page.sessions?.length).toBe(1);
    expect(page.audit).toBeNull();
  });
});

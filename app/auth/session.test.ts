import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
import { loader as rootLoader } from "../root";
import { getAuth, sessionMiddleware } from "./session.server";

beforeAll(setupDatabase);

describe("sessions", () => {
  it("renews a session past half its lifetime and sends the cookie again", async () => {
    const { id, cookie } = await signedIn(["user"]);
    const soon = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    await db().updateTable("session").set({ expires_at: soon }).where("user_id", "=", id).execute();

    const a = args(request("/dashboard", { cookie }));
    const res = (await sessionMiddleware(a, (async () => new Response("ok")) as never)) as Response;
    expect(res.headers.get("Set-Cookie")).toMatch(/^__session=.*Expires=/);
    const row = await db()
      .selectFrom("session")
      .select("expires_at")
      .where("user_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at)).toBeGreaterThan(Date.now() + 13 * 86400 * 1000);
  });

  it("does not touch a fresh session", async () => {
    const { cookie } = await signedIn(["user"]);
    const res = (await sessionMiddleware(
      args(request("/dashboard", { cookie })),
      (async () => new Response("ok")) as never,
    )) as Response;
    expect(res.headers.get("Set-Cookie")).toBeNull();
  });

  it("resolves the caller once per request", async () => {
    const { cookie } = await signedIn(["manager"]);
    const a = args(request("/dashboard", { cookie })) as { request: Request; context: never };
    const first = await getAuth(a);
    await db().deleteFrom("session").execute();
    const second = await getAuth(a);
    expect(second).toBe(first);
    expect(second.user?.roles).toEqual(["manager"]);
  });

  it("exposes no secrets in the root loader data", async () => {
    const { cookie } = await signedIn(["admin"]);
    const out = await run(() => rootLoader(args(request("/dashboard", { cookie }))));
    const text = JSON.stringify(out.body);
    expect(text).not.toMatch(/password|argon2|session_id|sessionId/i);
  });
});

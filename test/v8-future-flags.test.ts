import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { bodyLimitFor, FORM_BODY_LIMIT } from "../app/http/body-limits";
import config from "../react-router.config";
import { type AppServer, startApp } from "./app-server";
import { setupDatabase, signedIn } from "./helpers";

// React Router 8's behaviour, on today (docs/decisions/027-backup-and-upgrades.md): every
// `future.v8_*` flag is on, and the code reads the page's address from the `url` argument, since
// with v8_passThroughRequests `request.url` is the raw one (`/path.data?_routes=…` on a client
// navigation), which must never leak into a redirect.
let app: AppServer;

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
});

afterAll(() => app?.close());

/** Where a response sends the browser: a document's Location, or the redirect in a single-fetch body. */
async function target(res: Response): Promise<string | null> {
  const location = res.headers.get("Location");
  if (location) return location;
  // turbo-stream: [["SingleFetchRedirect",1],{…},"redirect","/login?…","status",302,…]
  const body = JSON.parse(await res.text()) as unknown[];
  const at = body.indexOf("redirect");
  return at >= 0 && typeof body[at + 1] === "string" ? (body[at + 1] as string) : null;
}

describe("React Router 8's future flags", () => {
  it("are all on: every v8_ flag this @react-router/dev knows", () => {
    const source = readFileSync(resolve("node_modules/@react-router/dev/dist/vite.js"), "utf8");
    const known = [...new Set(source.match(/\bv8_[A-Za-z]+/g))].sort();
    expect(known.length).toBeGreaterThanOrEqual(5);
    const future = config.future as Record<string, unknown>;
    expect(known.filter((flag) => future[flag] !== true)).toEqual([]);
  });

  it("sends a signed-out client navigation to the login with the page's address, not the .data one", async () => {
    const res = await app.fetch("/dashboard/users.data?q=ann&_routes=routes%2Fdashboard.users");
    const location = await target(res);
    expect(location).not.toBeNull();
    const redirectTo = new URL(location!, "http://x.invalid").searchParams.get("redirectTo");
    expect(redirectTo).toBe("/dashboard/users?q=ann");
  });

  it("sends an action posted through single fetch back to the page, not to its .data address", async () => {
    const admin = await signedIn(["super_admin"]);
    const role = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "user")
      .executeTakeFirstOrThrow();
    const post = (body: Record<string, string>) =>
      app.fetch("/dashboard/users.data?status=active", {
        method: "POST",
        cookie: admin.cookie,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body).toString(),
      });
    // Not emailed here (no provider): answered in place; cancelling it then redirects back.
    await post({ intent: "invite", email: "v8-invitee@example.test", roles: role.id });
    const invitation = await db()
      .selectFrom("user_token")
      .select("id")
      .where("kind", "=", "invite")
      .where("used_at", "is", null)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    const res = await post({ intent: "cancel-invite", invitationId: invitation.id });
    expect(await target(res)).toBe("/dashboard/users?status=active");
  });

  it("gives a trailing-slash page's data request (`/path/_.data`) the page's body limit", () => {
    expect(bodyLimitFor("/api/webhooks/tasks/_.data")).toBe(bodyLimitFor("/api/webhooks/tasks"));
    expect(bodyLimitFor("/api/webhooks/tasks/_.data")).toBeGreaterThan(FORM_BODY_LIMIT);
    expect(bodyLimitFor("/_.data")).toBe(FORM_BODY_LIMIT);
  });
});

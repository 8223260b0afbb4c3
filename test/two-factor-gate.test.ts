import { generateTOTP } from "@epic-web/totp";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { decryptSecret } from "../app/settings/secret-box.server";
import { type AppServer, startApp } from "./app-server";
import { PASSWORD, setupDatabase, signedIn } from "./helpers";

// A role that requires two-factor (app/auth/two-factor.server.ts): its holders meet the access
// gate (app/access/guard.server.ts) on every page, data request and API until they enrol, through
// the real request pipeline. Only Settings and the enrolment intents stay open.

let app: AppServer;
let due: { id: string; cookie: string };
let root: { id: string; cookie: string };
const form = { "Content-Type": "application/x-www-form-urlencoded" };
const json = { "Content-Type": "application/json" };

async function snapshot() {
  const tables = (await db().introspection.getTables())
    .map((t) => t.name)
    .filter((name) => !name.startsWith("kysely_") && name !== "rate_limit" && name !== "session");
  const counts: Record<string, string> = {};
  for (const name of tables) {
    const rows = await sql`select * from ${sql.table(name)}`.execute(db());
    counts[name] = JSON.stringify(rows.rows);
  }
  return counts;
}

beforeAll(async () => {
  await setupDatabase();
  root = await signedIn(["super_admin"]);
  due = await signedIn(["manager"]);
  app = await startApp();
  const manager = await db()
    .selectFrom("role")
    .select("id")
    .where("name", "=", "manager")
    .executeTakeFirstOrThrow();
  const res = await app.fetch("/dashboard/settings", {
    method: "POST",
    cookie: root.cookie,
    headers: form,
    body: new URLSearchParams({ intent: "two-factor-roles", roles: manager.id }).toString(),
  });
  expect(res.status).toBe(200);
}, 60_000);
afterAll(() => app?.close());

describe("enrolment a role requires", () => {
  it("sends every page to Settings and answers every API with 403 two_factor_enrolment_required", async () => {
    for (const route of app.routes) {
      const gated =
        route.path.startsWith("/dashboard") || (route.path.startsWith("/api/") && route.path !== "/api/*");
      if (!gated || ["/api/ping", "/api/webhooks/tasks", "/api/auth/verify-email"].includes(route.path))
        continue;
      const path = route.path.replace(":id", due.id);
      const res = await app.fetch(
        route.isResource ? path : `${path}.data?_routes=${encodeURIComponent(route.id)}`,
        {
          cookie: due.cookie,
        },
      );
      const text = await res.text();
      const where = `GET ${path} -> ${res.status} ${text.slice(0, 200)}`;
      if (route.id === "routes/dashboard.settings") {
        expect(res.status, where).toBe(200);
        continue;
      }
      if (route.isResource) {
        expect(res.status, where).toBe(403);
        expect(JSON.parse(text), where).toEqual({ error: "two_factor_enrolment_required" });
      } else {
        expect(text, where).toContain("/dashboard/settings?twoFactor=1");
      }
    }
    const page = await app.fetch("/dashboard", { cookie: due.cookie });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe("/dashboard/settings?twoFactor=1");
  });

  it("refuses every other action, changing nothing", async () => {
    const targets = [
      { path: "/dashboard/settings", headers: form, body: "intent=profile&name=Renamed" },
      { path: "/dashboard/settings", headers: form, body: "intent=revoke-others" },
      { path: "/dashboard/teams", headers: form, body: "intent=create&name=Sneaky" },
      { path: "/api/tasks", headers: json, body: JSON.stringify({ type: "users.export" }) },
      { path: "/api/notifications", headers: form, body: "intent=read-all" },
    ];
    for (const target of targets) {
      const before = await snapshot();
      const res = await app.fetch(target.path, { method: "POST", cookie: due.cookie, ...target });
      const text = await res.text();
      const where = `POST ${target.path} -> ${res.status} ${text.slice(0, 200)}`;
      expect(res.status, where).toBe(403);
      if (target.path.startsWith("/api/"))
        expect(JSON.parse(text), where).toEqual({ error: "two_factor_enrolment_required" });
      expect(await snapshot(), where).toEqual(before);
    }
  });

  it("lets the account enrol, then everything opens", async () => {
    const post = (values: Record<string, string>) =>
      app.fetch("/dashboard/settings", {
        method: "POST",
        cookie: due.cookie,
        headers: form,
        body: new URLSearchParams(values).toString(),
      });
    expect((await post({ intent: "two-factor-start", currentPassword: PASSWORD })).status).toBe(200);
    const stored = await db()
      .selectFrom("user_two_factor")
      .select("secret")
      .where("user_id", "=", due.id)
      .executeTakeFirstOrThrow();
    const { otp } = await generateTOTP({
      secret: decryptSecret(stored.secret),
      period: 30,
      digits: 6,
      algorithm: "SHA-1",
    });
    expect((await post({ intent: "two-factor-confirm", code: otp })).status).toBe(200);
    expect((await app.fetch("/dashboard", { cookie: due.cookie })).status).toBe(200);
    expect((await app.fetch("/api/notifications", { cookie: due.cookie })).status).toBe(200);
  });
});

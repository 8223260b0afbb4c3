import { generateTOTP } from "@epic-web/totp";
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { decryptSecret } from "../app/security/secret-box.server";
import { type AppServer, startApp } from "./app-server";
import { ownTables, PASSWORD, setupDatabase, signedIn } from "./helpers";

// A role that requires two-factor (app/auth/two-factor.server.ts): its holders meet the access
// gate (app/auth/guard.server.ts) on every page, data request and API until they enrol, through
// the real request pipeline. Only Settings and the enrolment intents stay open.

let app: AppServer;
let due: { id: string; cookie: string };
// Hold settings.manage while a gate is up: one must enrol (manager), one must change a password.
let dueAdmin: { id: string; cookie: string };
let mustChange: { id: string; cookie: string };
let root: { id: string; cookie: string };
const form = { "Content-Type": "application/x-www-form-urlencoded" };
const json = { "Content-Type": "application/json" };

async function snapshot() {
  const tables = (await ownTables()).filter(
    (name) => !name.startsWith("kysely_") && name !== "rate_limit" && name !== "session",
  );
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
  dueAdmin = await signedIn(["manager", "admin"]);
  mustChange = await signedIn(["admin"]);
  await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", mustChange.id).execute();
  app = await startApp();
  const manager = await db()
    .selectFrom("role")
    .select("id")
    .where("name", "=", "manager")
    .executeTakeFirstOrThrow();
  const res = await app.fetch("/dashboard/settings/system", {
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
      if (
        !gated ||
        ["/api/ping", "/api/webhooks/tasks", "/api/auth/verify-email", "/api/openapi.json"].includes(
          route.path,
        )
      )
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
      if (route.id === "routes/dashboard.settings.security") {
        expect(res.status, where).toBe(200);
        continue;
      }
      if (route.isResource) {
        expect(res.status, where).toBe(403);
        expect(JSON.parse(text), where).toEqual({ error: "two_factor_enrolment_required" });
      } else {
        expect(text, where).toContain("/dashboard/settings/security?twoFactor=1");
      }
    }
    const page = await app.fetch("/dashboard", { cookie: due.cookie });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe("/dashboard/settings/security?twoFactor=1");
  });

  it("remembers the page asked for, and Settings offers to go on there once enrolled; never off the dashboard", async () => {
    const teams = await app.fetch("/dashboard/teams?q=x", { cookie: due.cookie });
    expect(teams.status).toBe(302);
    const location = teams.headers.get("Location")!;
    expect(location).toBe(
      `/dashboard/settings/security?twoFactor=1&redirectTo=${encodeURIComponent("/dashboard/teams?q=x")}`,
    );
    const settings = (query: string) =>
      app.fetch(`/dashboard/settings/security.data?${query}&_routes=routes%2Fdashboard.settings.security`, {
        cookie: due.cookie,
      });
    expect(await (await settings(location.split("?")[1]!)).text()).toContain("/dashboard/teams?q=x");
    for (const evil of ["https://evil.example/", "//evil.example/x", "/api/tasks", "/login"]) {
      const text = await (
        await settings(new URLSearchParams({ twoFactor: "1", redirectTo: evil }).toString())
      ).text();
      expect(text, evil).not.toContain("evil.example");
      expect(text, evil).toContain('"afterEnrolment","/dashboard"');
    }
  });

  it("refuses every other action, changing nothing", async () => {
    const targets = [
      { path: "/dashboard/settings/profile", headers: form, body: "intent=profile&name=Renamed" },
      { path: "/dashboard/settings/security", headers: form, body: "intent=revoke-others" },
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
      app.fetch("/dashboard/settings/security", {
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

// The gate decides on the form the action receives, parsed once (app/http/read-form.server.ts): a
// byte order mark, a repeated key, a charset parameter or a multipart body cannot make the gate
// read one intent and the action run another.
describe("the gate and the action read the same form", () => {
  const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
  const bytes = (text: string, prefix = new Uint8Array()) => {
    const body = new TextEncoder().encode(text);
    const out = new Uint8Array(prefix.length + body.length);
    out.set(prefix);
    out.set(body, prefix.length);
    return out;
  };
  const attacks = (allowed: string) => [
    {
      what: "a byte order mark",
      type: form["Content-Type"],
      body: bytes(`intent=${allowed}&intent=system&APP_NAME=x`, BOM),
    },
    {
      what: "a byte order mark and a charset",
      type: "application/x-www-form-urlencoded; charset=utf-8",
      body: bytes(`intent=${allowed}&intent=system&APP_NAME=x`, BOM),
    },
    {
      what: "an upper-case media type",
      type: "Application/X-WWW-Form-Urlencoded",
      body: bytes(`intent=system&APP_NAME=x`),
    },
    {
      what: "a multipart body",
      type: "multipart/form-data; boundary=b",
      body: bytes(
        `--b\r\nContent-Disposition: form-data; name="intent"\r\n\r\nsystem\r\n` +
          `--b\r\nContent-Disposition: form-data; name="intent"\r\n\r\n${allowed}\r\n` +
          `--b\r\nContent-Disposition: form-data; name="APP_NAME"\r\n\r\nx\r\n--b--\r\n`,
      ),
    },
  ];
  const accounts = () => [
    { who: "an account that must enrol", user: dueAdmin, allowed: "two-factor-start" },
    { who: "an account that must change its password", user: mustChange, allowed: "password" },
  ];

  it("refuses a form whose action would run another intent than the gate let through", async () => {
    for (const { who, user, allowed } of accounts()) {
      for (const attack of attacks(allowed)) {
        for (const path of ["/dashboard/settings/security", "/dashboard/settings/security.data"]) {
          const before = await snapshot();
          const res = await app.fetch(path, {
            method: "POST",
            cookie: user.cookie,
            headers: { "Content-Type": attack.type },
            body: attack.body,
          });
          const where = `${who}, ${attack.what}, ${path} -> ${res.status} ${(await res.text()).slice(0, 200)}`;
          expect(res.status, where).toBe(403);
          expect(await snapshot(), where).toEqual(before);
        }
      }
    }
    const name = await db().selectFrom("system_setting").selectAll().where("key", "=", "APP_NAME").execute();
    expect(name).toEqual([]);
  });

  it("lets a body through only when the action's own form names an open intent", async () => {
    // Any key order, repetition, byte order mark or charset: the gate refuses unless the intent the
    // action reads (its form's first `intent`) is one the gate keeps open.
    const key = fc.constantFrom("intent", "\uFEFFintent", "INTENT", "intent ", "APP_NAME");
    const value = fc.constantFrom("system", "two-factor-start", "profile", "x");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom("", "; charset=utf-8", "; charset=UTF-8"),
        async (pairs, bom, charset) => {
          const text = new URLSearchParams(pairs).toString();
          const body = bytes(text, bom ? BOM : undefined);
          const actionIntent = await new Response(body, { headers: form })
            .formData()
            .then((f) => f.get("intent"));
          if (actionIntent === "two-factor-start") return; // the open intent itself runs, as it should
          const res = await app.fetch("/dashboard/settings/security", {
            method: "POST",
            cookie: dueAdmin.cookie,
            headers: { "Content-Type": `application/x-www-form-urlencoded${charset}` },
            body,
          });
          expect(res.status, `${JSON.stringify(pairs)} bom=${bom} -> ${res.status}`).toBe(403);
        },
      ),
      { numRuns: 40 },
    );
    const name = await db().selectFrom("system_setting").selectAll().where("key", "=", "APP_NAME").execute();
    expect(name).toEqual([]);
  });
});

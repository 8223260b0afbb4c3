import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { can } from "../app/access/check";
import { roleGrants } from "../app/access/role-cache.server";
import { db, now } from "../app/db.server";
import { insertTask } from "../app/tasks/repository.server";
import { type AppRoute, type AppServer, startApp } from "./app-server";
import { createUser, PASSWORD, sessionCookieFor, setupDatabase, signedIn } from "./helpers";

// Every route of app/routes.ts, asked for its data alone (`.data?_routes=<id>`, which skips the
// dashboard layout's loader), as every kind of caller, through the real request pipeline.
// A route missing from NEEDS fails the test: a new route must say what it needs.
type Need = "public" | "super_admin" | "dashboard.access" | "user.read" | "roles.manage" | "log.read";
// "directory": settings.manage, user.write and user.update; "directory token": no session opens it;
// "team picker": team.write and user.read (people's names are user.read material);
// "roles list": roles.manage or user.update (who may grant needs the roles' names).
type Other =
  | "team.read"
  | "settings.manage"
  | "user.write"
  | "directory"
  | "directory token"
  | "team picker"
  | "roles list"
  | "user.update";
const NEEDS: Record<string, Need | Other> = {
  root: "public",
  "routes/home": "public",
  "routes/login": "public",
  "routes/login.two-factor": "public",
  "routes/login.passkey": "public",
  "routes/login.sso-link": "public",
  "routes/logout": "public",
  "routes/impersonation.stop": "public",
  "routes/theme": "public",
  "routes/register": "public",
  "routes/check-inbox": "public",
  "routes/resend-verification": "public",
  "routes/forgot-password": "public",
  "routes/reset-password": "public",
  "routes/accept-invite": "public",
  "routes/account.not-me": "public",
  "routes/api.auth.verify-email": "public",
  "routes/auth.oidc.$provider": "public",
  "routes/auth.oidc.$provider.callback": "public",
  "routes/api.ping": "public",
  "routes/api.openapi": "public",
  "routes/api.webhooks.tasks": "public",
  "routes/api.not-found": "public",
  "routes/not-found": "public",
  "routes/api.mail": "settings.manage",
  "routes/api.access.sync": "super_admin",
  // Anyone explains their own access; without a permission the answer is a 400, not a refusal.
  "routes/api.access.explain": "dashboard.access",
  "routes/api.access.who": "roles.manage",
  // POST only: a GET is 405 for anyone who gets past the gate.
  "routes/api.access.simulate": "dashboard.access",
  "routes/api.roles": "roles list",
  // Anyone asks for a role and lists their own requests; deciding is POST only.
  "routes/api.access-requests": "dashboard.access",
  "routes/api.access-requests.$id.approve": "dashboard.access",
  "routes/api.access-requests.$id.deny": "dashboard.access",
  "routes/api.access-reviews": "roles.manage",
  "routes/api.sessions": "user.update",
  "routes/api.sessions.$id": "user.update",
  "routes/api.email-templates": "settings.manage",
  // PUT, DELETE and POST only: a GET is 405 for anyone who gets past the gate.
  "routes/api.email-templates.$type.$language": "dashboard.access",
  "routes/api.email-templates.$type.$language.preview": "dashboard.access",
  "routes/api.access-reviews.$id": "roles.manage",
  "routes/api.access-reviews.$id.evidence": "roles.manage",
  // POST only: a GET is 405 for anyone who gets past the gate.
  "routes/api.access-reviews.$id.items.$itemId": "dashboard.access",
  "routes/api.access-reviews.$id.close": "dashboard.access",
  "routes/api.users.$id.roles": "user.read",
  // DELETE only: a GET is 405 for anyone who gets past the gate.
  "routes/api.users.$id.roles.$grantId": "dashboard.access",
  "routes/api.roles.$name": "dashboard.access",
  "routes/api.tasks": "dashboard.access",
  "routes/api.tasks.$id": "dashboard.access",
  "routes/api.tasks.$id.download": "dashboard.access",
  "routes/api.events": "dashboard.access",
  "routes/api.webhook-endpoints": "settings.manage",
  "routes/api.webhook-endpoints.$id": "settings.manage",
  "routes/api.webhook-endpoints.$id.rotate-secret": "settings.manage",
  "routes/api.webhook-endpoints.$id.send-test": "settings.manage",
  "routes/api.webhook-endpoints.$id.deliveries": "settings.manage",
  "routes/api.webhook-deliveries.$id.retry": "settings.manage",
  "routes/api.notifications": "dashboard.access",
  "routes/api.search": "dashboard.access",
  "routes/api.teams.$id.candidates": "team picker",
  "routes/api.views": "dashboard.access",
  "routes/dashboard": "dashboard.access",
  "routes/dashboard-home": "dashboard.access",
  "routes/dashboard.settings": "dashboard.access",
  "routes/dashboard.settings._index": "dashboard.access",
  "routes/dashboard.settings.profile": "dashboard.access",
  "routes/dashboard.settings.security": "dashboard.access",
  "routes/dashboard.settings.api-tokens": "dashboard.access",
  "routes/dashboard.settings.invite": "user.write",
  "routes/dashboard.settings.system": "settings.manage",
  "routes/dashboard.settings.webhooks": "settings.manage",
  "routes/dashboard.settings.email-templates": "settings.manage",
  "routes/dashboard.users": "user.read",
  "routes/dashboard.users.$id": "user.read",
  "routes/dashboard.users.import": "user.write",
  "routes/dashboard.access": "roles.manage",
  "routes/dashboard.access.requests": "dashboard.access",
  "routes/dashboard.access.reviews": "roles.manage",
  "routes/dashboard.access.reviews.$id": "roles.manage",
  "routes/dashboard.access.roles.$name.policy": "roles.manage",
  "routes/dashboard.sessions": "user.update",
  "routes/dashboard.logs": "log.read",
  "routes/dashboard.teams": "team.read",
  "routes/dashboard.teams.$id": "team.read",
  "routes/dashboard.broadcast": "settings.manage",
  "routes/dashboard.tasks": "dashboard.access",
  "routes/dashboard.api-reference": "dashboard.access",
  "routes/api.undo": "dashboard.access",
  "routes/dashboard.settings.sso": "super_admin",
  "routes/dashboard.settings.directory": "directory",
  "routes/scim.v2.$": "directory token",
};

// Rows only a caller allowed to read them may see; none may appear in a refused answer.
const MARKERS = ["victim-marker@example.test", "Marker Team", "marker.audit", "TaskMarker", "NoticeMarker"];

type Caller = { name: string; cookie?: string; roles: string[]; mustChange?: boolean };

let app: AppServer;
const callers: Caller[] = [];
const ids: Record<string, string> = {};

async function seedMarkers(mustChangeUserId: string) {
  const victim = await createUser({ name: "Victim", email: "victim-marker@example.test" });
  const ts = now();
  ids.user = victim.id;
  ids.team = randomUUID();
  await db()
    .insertInto("team")
    .values({ id: ids.team, name: "Marker Team", description: "", created_at: ts, updated_at: ts })
    .execute();
  await db()
    .insertInto("team_member")
    .values({ team_id: ids.team, user_id: victim.id, team_role: "member", created_at: ts })
    .execute();
  await db()
    .insertInto("audit_log")
    .values({
      id: randomUUID(),
      action: "marker.audit",
      actor_id: null,
      actor_email: null,
      target_type: null,
      target_id: null,
      details: null,
      ip: "198.51.100.1",
      user_agent: null,
      created_at: ts,
    })
    .execute();
  // The temporary-password account's own rows: even these wait until the password is changed.
  ids.task = await insertTask({
    type: "report.generate",
    userId: mustChangeUserId,
    payload: { note: "TaskMarker" },
  });
  await db()
    .insertInto("notification")
    .values({
      id: randomUUID(),
      user_id: mustChangeUserId,
      broadcast_id: null,
      title: "NoticeMarker",
      message: "NoticeMarker",
      level: "info",
      link: null,
      read_at: null,
      created_at: ts,
    })
    .execute();
}

async function customRole(name: string, permissions: string[]) {
  const id = randomUUID();
  const ts = now();
  await db().insertInto("role").values({ id, name, label: name, created_at: ts, updated_at: ts }).execute();
  const perms = await db().selectFrom("permission").select("id").where("key", "in", permissions).execute();
  await db()
    .insertInto("role_permission")
    .values(perms.map((p) => ({ role_id: id, permission_id: p.id })))
    .execute();
}

beforeAll(async () => {
  await setupDatabase();
  await customRole("auditor", ["log.read", "user.read"]);
  await customRole("team_only", ["team.read", "team.write"]);
  for (const role of ["super_admin", "admin", "manager", "user", "guest", "auditor"]) {
    callers.push({ name: role, roles: [role], cookie: (await signedIn([role])).cookie });
  }
  // A super admin with a temporary password: only that rule stands between it and every route.
  const temp = await signedIn(["super_admin"]);
  await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", temp.id).execute();
  callers.push({
    name: "must-change-password",
    roles: ["super_admin"],
    cookie: temp.cookie,
    mustChange: true,
  });
  ids.mustChange = temp.id;
  callers.push({ name: "signed out", roles: [] });
  await seedMarkers(temp.id);
  app = await startApp();
}, 60_000);
afterAll(() => app?.close());

function urlOf(route: AppRoute) {
  const path = route.path
    .replace(
      ":id",
      route.id.includes("users") ? ids.user! : route.id.includes("teams") ? ids.team! : ids.task!,
    )
    .replace("*", "no-such-page");
  return path === "/" ? "/_root.data" : `${path}.data`;
}

/** Status and text of a GET, with event streams cut off once they answer. */
async function get(path: string, cookie?: string) {
  const abort = new AbortController();
  const request = new Request(`http://localhost:3000${path}`, {
    headers: cookie ? { Cookie: cookie } : {},
    signal: abort.signal,
  });
  const stop = setTimeout(() => abort.abort(), 2000);
  try {
    const res = await app.handle(request);
    const streaming = res.headers.get("Content-Type")?.startsWith("text/event-stream");
    const text = streaming ? "" : await res.text().catch(() => "");
    if (streaming) await res.body?.cancel();
    return { status: res.status, text };
  } finally {
    clearTimeout(stop);
    abort.abort();
  }
}

const isRedirect = (r: { status: number; text: string }) =>
  (r.status >= 300 && r.status < 400) || (r.status === 202 && r.text.includes("SingleFetchRedirect"));
// 405: a resource route that answers no GET at all (POST-only endpoints) gives nobody data.
const refused = (r: { status: number; text: string }) => [401, 403, 405].includes(r.status) || isRedirect(r);

async function holds(caller: Caller, need: string) {
  const grants = [...(await roleGrants()).values()].filter((g) => caller.roles.includes(g.name));
  const subject = {
    isSuperAdmin: grants.some((g) => g.all),
    permissions: new Set(grants.flatMap((g) => [...g.permissions])),
  };
  if (need === "super_admin") return subject.isSuperAdmin;
  if (need === "directory token") return false;
  if (need === "team picker")
    return can(subject, "dashboard.access") && can(subject, "team.write") && can(subject, "user.read");
  if (need === "roles list")
    return can(subject, "dashboard.access") && (can(subject, "roles.manage") || can(subject, "user.update"));
  if (need === "directory")
    return (
      can(subject, "dashboard.access") &&
      can(subject, "settings.manage") &&
      can(subject, "user.write") &&
      can(subject, "user.update")
    );
  return can(subject, "dashboard.access") && can(subject, need);
}

describe("every route's data alone (`.data?_routes=`), as every caller", () => {
  it("knows what every route needs", () => {
    expect(app.routes.map((r) => r.id).filter((id) => !(id in NEEDS))).toEqual([]);
  });

  it("the markers are visible to a super admin (so their absence below means something)", async () => {
    const admin = callers[0]!;
    const logs = await get("/dashboard/logs.data?_routes=routes%2Fdashboard.logs", admin.cookie);
    expect(logs.text).toContain("marker.audit");
    const team = await get(
      `/dashboard/teams/${ids.team}.data?_routes=routes%2Fdashboard.teams.%24id`,
      admin.cookie,
    );
    expect(team.text).toContain("victim-marker@example.test");
  });

  it.each([
    "super_admin",
    "admin",
    "manager",
    "user",
    "guest",
    "auditor",
    "must-change-password",
    "signed out",
  ])("as %s", async (name) => {
    const caller = callers.find((c) => c.name === name)!;
    for (const route of app.routes) {
      const need = NEEDS[route.id]!;
      const url = `${urlOf(route)}?_routes=${encodeURIComponent(route.id)}`;
      const res = await get(url, caller.cookie);
      const where = `${caller.name} GET ${url} -> ${res.status} ${res.text.slice(0, 200)}`;
      if (need === "public") {
        if (caller.mustChange || !caller.cookie)
          for (const m of MARKERS) expect(res.text, where).not.toContain(m);
        continue;
      }
      const allowed = !caller.mustChange || route.id === "routes/dashboard.settings.security";
      if (caller.cookie && allowed && (await holds(caller, need))) {
        // /dashboard/settings itself answers with its first page.
        if (route.id === "routes/dashboard.settings._index")
          expect(isRedirect(res) && res.text.includes("/dashboard/settings/profile"), where).toBe(true);
        else expect(refused(res) && res.status !== 405, where).toBe(false);
        continue;
      }
      expect(refused(res), where).toBe(true);
      for (const m of MARKERS) expect(res.text, where).not.toContain(m);
      if (caller.mustChange && route.isResource && need !== "directory token")
        expect(res.text, where).toContain("password_change_required");
      if (caller.mustChange && !route.isResource) expect(res.text, where).toContain("/dashboard/settings");
    }
  });
});

describe("a temporary password", () => {
  const form = { "Content-Type": "application/x-www-form-urlencoded" };
  const json = { "Content-Type": "application/json" };
  async function snapshot() {
    const tables = [
      "team",
      "team_member",
      "user",
      "user_role",
      "role",
      "role_permission",
      "task",
      "notification",
      "broadcast",
      "system_setting",
      "audit_log",
      "user_token",
    ] as const;
    return Promise.all(
      tables.map((t) =>
        db()
          .selectFrom(t)
          .selectAll()
          .execute()
          .then((rows) => JSON.stringify(rows).length + rows.length),
      ),
    );
  }
  const cookie = () => callers.find((c) => c.mustChange)!.cookie!;
  const targets = () => [
    { path: "/dashboard/teams", headers: form, body: "intent=create&name=Sneaky" },
    { path: `/dashboard/teams/${ids.team}`, headers: form, body: "intent=rename&name=Renamed" },
    {
      path: "/dashboard/users",
      headers: form,
      body: `intent=create&name=X&email=x@example.test&password=${encodeURIComponent(PASSWORD)}`,
    },
    { path: `/dashboard/users/${ids.user}`, headers: form, body: "intent=disable" },
    { path: "/dashboard/access", headers: form, body: "intent=create-role&name=sneaky&label=Sneaky" },
    { path: "/dashboard/broadcast", headers: form, body: "title=Hi&message=Hello&level=info&audience=all" },
    { path: "/dashboard/settings/profile", headers: form, body: "intent=profile&name=Renamed" },
    { path: "/dashboard/settings/system", headers: form, body: "intent=system&APP_NAME=Sneaky" },
    { path: "/api/tasks", headers: json, body: JSON.stringify({ type: "users.export" }) },
    { path: "/api/mail", headers: json, body: JSON.stringify({ to: "x@example.test" }) },
    { path: "/api/access/sync", headers: json, body: "" },
    { path: "/api/notifications", headers: form, body: "intent=read-all" },
  ];

  it("refuses every action but the password change, changing nothing", async () => {
    for (const target of targets()) {
      for (const path of [target.path, `${target.path}.data`]) {
        const before = await snapshot();
        const res = await app.fetch(path, {
          method: "POST",
          cookie: cookie(),
          headers: target.headers,
          body: target.body,
        });
        const text = await res.text();
        const where = `POST ${path} -> ${res.status} ${text.slice(0, 200)}`;
        expect(res.status, where).toBe(403);
        if (path === target.path && path.startsWith("/api/"))
          expect(JSON.parse(text), where).toEqual({ error: "password_change_required" });
        if (path.startsWith("/api/")) expect(text, where).toContain("password_change_required");
        expect(await snapshot(), where).toEqual(before);
      }
    }
  });

  it("still lets the account change its password, then everything opens", async () => {
    const page = await get("/dashboard/settings/security", cookie());
    expect(page.status).toBe(200);
    const res = await app.fetch("/dashboard/settings/security", {
      method: "POST",
      cookie: cookie(),
      headers: form,
      body: new URLSearchParams({
        intent: "password",
        currentPassword: PASSWORD,
        newPassword: "a much newer passphrase",
        confirm: "a much newer passphrase",
      }).toString(),
    });
    expect(res.status).toBeLessThan(400);
    const row = await db()
      .selectFrom("user")
      .select("must_change_password")
      .where("id", "=", ids.mustChange!)
      .executeTakeFirstOrThrow();
    expect(row.must_change_password).toBe(0);
    const fresh = await sessionCookieFor(ids.mustChange!);
    expect((await get("/api/tasks", fresh)).text).toContain(ids.task);
  });

  it("may sign out", async () => {
    const temp = await signedIn(["admin"]);
    await db().updateTable("user").set({ must_change_password: 1 }).where("id", "=", temp.id).execute();
    const res = await app.fetch("/logout", { method: "POST", cookie: temp.cookie });
    expect(res.status).toBe(302);
    expect(await db().selectFrom("session").select("id").where("user_id", "=", temp.id).execute()).toEqual(
      [],
    );
  });
});

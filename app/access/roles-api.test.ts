import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { answerProblem } from "../api-docs/check-answer";
import { db } from "../db.server";
import * as rolesRoute from "../routes/api.roles";
import * as roleRoute from "../routes/api.roles.$name";
import * as usersPage from "../routes/dashboard.users/route";
import { roleGrants } from "./role-cache.server";
import { createRole } from "./roles-admin.server";

// `PATCH /api/roles/:name` and the role's description (docs/http-contract.md, "Roles API"): the
// matrix's escalation rules, bad input, and the description reaching the forms that choose roles.

let admin: string;
let superAdmin: string;
let manager: string;

const patch = async (cookie: string, name: string, body: unknown, raw?: string) => {
  const res = await run(() =>
    roleRoute.action(
      args(
        request(`/api/roles/${name}`, {
          cookie,
          method: "PATCH",
          body: raw ?? JSON.stringify(body),
          headers: { "Content-Type": "application/json" },
        }),
        { name },
      ),
    ),
  );
  // Every answer is one the API description allows (app/api-docs).
  expect(answerProblem("PATCH", `/api/roles/${name}`, res.status, res.body)).toBeNull();
  return res;
};

const stored = (name: string) =>
  db().selectFrom("role").select(["label", "description"]).where("name", "=", name).executeTakeFirstOrThrow();

beforeAll(async () => {
  await setupDatabase();
  admin = await sessionCookieFor((await createUser({ roles: ["admin"] })).id);
  superAdmin = await sessionCookieFor((await createUser({ roles: ["super_admin"] })).id);
  manager = await sessionCookieFor((await createUser({ roles: ["manager"] })).id);
});

describe("PATCH /api/roles/:name", () => {
  it("sets the description and label, keeps what was left out, audits before and after", async () => {
    const before = [...(await roleGrants()).values()].find((r) => r.name === "manager")!;
    const res = await patch(admin, "manager", { description: "Runs the teams of a region", label: "Lead" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "manager",
      label: "Lead",
      description: "Runs the teams of a region",
      permissions: [...before.permissions].sort(),
    });
    expect(await stored("manager")).toEqual({ label: "Lead", description: "Runs the teams of a region" });
    const row = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "role.permissions.update")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.details as string)).toMatchObject({
      before: { description: "" },
      after: { description: "Runs the teams of a region" },
    });
    const listed = await run(() => rolesRoute.loader(args(request("/api/roles", { cookie: admin }))));
    expect((listed.body as { roles: { name: string; description: string }[] }).roles).toContainEqual(
      expect.objectContaining({ name: "manager", description: "Runs the teams of a region" }),
    );
  });

  it("keeps the description when a PATCH leaves it out", async () => {
    expect((await patch(admin, "manager", { label: "Lead" })).status).toBe(200);
    expect(await stored("manager")).toEqual({ label: "Lead", description: "Runs the teams of a region" });
  });

  it("shows the description where roles are chosen (the invite and create forms)", async () => {
    const page = await run(() => usersPage.loader(args(request("/dashboard/users", { cookie: admin }))));
    const offered = (page.body as { assignable: { name: string; description: string }[] }).assignable;
    expect(offered.find((r) => r.name === "manager")?.description).toBe("Runs the teams of a region");
  });

  it("refuses bad input on its field and writes nothing", async () => {
    for (const [body, field] of [
      [{ description: "two\nlines" }, "description"],
      [{ description: "x".repeat(201) }, "description"],
      [{ description: "evil \u202e override" }, "description"],
      // Marks and separators that hide, reorder or break what a reader sees.
      ...["\u200f", "\u061c", "\u2028", "\u2029", "\u0085", "\u009b", "\u200b", "\ufeff"].map(
        (c) => [{ description: `a${c}b` }, "description"] as const,
      ),
      [{ label: "" }, "label"],
      [{ permissions: ["no.such"] }, "permissions.0"],
      [{ requestable: true }, undefined],
    ] as const) {
      const res = await patch(admin, "manager", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      if (field) expect(res.body).toMatchObject({ error: "invalid_request", field });
    }
    expect((await patch(admin, "manager", null, "{not json")).status).toBe(400);
    expect(await stored("manager")).toEqual({ label: "Lead", description: "Runs the teams of a region" });
  });

  it("holds the matrix's rules: roles.manage, nothing one lacks, never Super Admin, an unknown role is 404", async () => {
    expect((await patch(manager, "user", { description: "x" })).status).toBe(403);
    // Someone who manages roles but cannot delete users cannot hand user.delete to a role.
    const keeper = await createRole(
      {
        id: "00000000-0000-4000-8000-000000000001",
        email: "s@x",
        isSuperAdmin: true,
        permissions: new Set(),
      },
      { name: "keeper", label: "Keeper", permissions: ["dashboard.access", "roles.manage"] },
      { request: new Request("http://localhost/") },
    );
    expect(keeper).toBeTruthy();
    const lead = await sessionCookieFor((await createUser({ roles: ["keeper"] })).id);
    const lacking = await patch(lead, "user", { permissions: ["dashboard.access", "user.delete"] });
    expect(lacking.status).toBe(403);
    expect((await patch(lead, "user", { description: "Everyone signed in" })).status).toBe(200);
    await patch(lead, "user", { description: "" });
    expect((await patch(superAdmin, "super_admin", { description: "everything" })).status).toBe(403);
    expect((await patch(admin, "no_such_role", { description: "x" })).status).toBe(404);
    expect(await stored("user")).toEqual({ label: "User", description: "" });
    const get = await run(() =>
      roleRoute.action(
        args(request("/api/roles/user", { cookie: admin, method: "DELETE" }), { name: "user" }),
      ),
    );
    expect(get.status).toBe(405);
  });

  it("sets a role's session limits, one at a time or both; null lifts one; bad values are refused on their field", async () => {
    const limits = () =>
      db()
        .selectFrom("role")
        .select(["session_idle_minutes", "session_max_hours"])
        .where("name", "=", "user")
        .executeTakeFirstOrThrow();
    const both = await patch(admin, "user", { sessionIdleMinutes: 30, sessionMaxHours: 12 });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ name: "user", sessionIdleMinutes: 30, sessionMaxHours: 12 });
    expect(await limits()).toEqual({ session_idle_minutes: 30, session_max_hours: 12 });
    // One left out keeps its value; null lifts it.
    expect((await patch(admin, "user", { sessionMaxHours: null })).body).toMatchObject({
      sessionIdleMinutes: 30,
      sessionMaxHours: null,
    });
    const audited = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "role.sessions.update")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audited.details as string)).toMatchObject({
      before: { idleMinutes: 30, maxHours: 12 },
      after: { idleMinutes: 30, maxHours: null },
    });
    const listed = await run(() => rolesRoute.loader(args(request("/api/roles", { cookie: admin }))));
    expect((listed.body as { roles: unknown[] }).roles).toContainEqual(
      expect.objectContaining({ name: "user", sessionIdleMinutes: 30, sessionMaxHours: null }),
    );
    for (const [body, field] of [
      [{ sessionIdleMinutes: 0 }, "sessionIdleMinutes"],
      [{ sessionIdleMinutes: 43_201 }, "sessionIdleMinutes"],
      [{ sessionIdleMinutes: 1.5 }, "sessionIdleMinutes"],
      [{ sessionMaxHours: "12" }, "sessionMaxHours"],
      [{ sessionMaxHours: 8_761 }, "sessionMaxHours"],
    ] as const) {
      const res = await patch(admin, "user", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: "invalid_request", field });
    }
    // Super Admin's limits are a super admin's; a manager manages no role; nothing was written.
    expect((await patch(admin, "super_admin", { sessionIdleMinutes: 5 })).status).toBe(403);
    expect((await patch(manager, "user", { sessionIdleMinutes: 5 })).status).toBe(403);
    expect(await limits()).toEqual({ session_idle_minutes: 30, session_max_hours: null });
    const own = await patch(superAdmin, "super_admin", { sessionMaxHours: 24 });
    expect(own.body).toMatchObject({ superAdmin: true, sessionMaxHours: 24 });
    expect((await patch(superAdmin, "super_admin", { sessionMaxHours: null })).status).toBe(200);
    expect((await patch(admin, "user", { sessionIdleMinutes: null })).status).toBe(200);
  });
});

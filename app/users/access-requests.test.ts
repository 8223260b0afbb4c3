import { beforeAll, describe, expect, it } from "vitest";
import { args, context, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { createTeam } from "../../test/support/teams";
import { createRole } from "../access/roles-admin.server";
import { answerProblem } from "../api-docs/check-answer";
import { getSessionUser } from "../auth/session.server";
import { invalidateSessions } from "../auth/session-cache.server";
import { db } from "../db.server";
import * as requestsRoute from "../routes/api.access-requests";
import * as approveRoute from "../routes/api.access-requests.$id.approve";
import * as denyRoute from "../routes/api.access-requests.$id.deny";
import * as roleRoute from "../routes/api.roles.$name";
import * as accessPage from "../routes/dashboard.access/route";
import { expireAccessRequests } from "./access-requests.server";

// Access requests (docs/http-contract.md, "Access requests"; SECURITY-PLAYBOOK §5-6): a person
// asks for a requestable role for some hours; another admin who holds it approves, and the grant
// ends after those hours; nobody decides their own; bad input and stale decisions are refused.

const postmark = withFakePostmark();

type Person = { id: string; email: string; cookie: string };
let superAdmin: Person;
let admin: Person;
let otherAdmin: Person;
let requester: Person;
let rolesOnly: Person;

async function person(roles: string[]): Promise<Person> {
  const u = await createUser({ roles });
  return { id: u.id, email: u.email, cookie: await sessionCookieFor(u.id) };
}

async function call(
  method: "GET" | "POST" | "PATCH",
  path: string,
  who: Person,
  body?: unknown,
  params: Record<string, string> = {},
) {
  const req = request(path, {
    cookie: who.cookie,
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
  });
  const route = path.endsWith("/approve")
    ? approveRoute.action
    : path.endsWith("/deny")
      ? denyRoute.action
      : path.startsWith("/api/roles/")
        ? roleRoute.action
        : method === "GET"
          ? requestsRoute.loader
          : requestsRoute.action;
  const res = await run(() => (route as (a: never) => unknown)(args(req, params) as never));
  // Every answer is one the API description allows (app/api-docs).
  expect(answerProblem(method, path, res.status, res.body), `${method} ${path}`).toBeNull();
  return res as { status: number; body: Record<string, unknown> };
}

const ask = (who: Person, body: unknown) => call("POST", "/api/access-requests", who, body);
const decide = (who: Person, id: string, verb: "approve" | "deny", body: unknown = {}) =>
  call("POST", `/api/access-requests/${id}/${verb}`, who, body, { id });
const permissionsOf = async (who: Person) =>
  (await getSessionUser({ request: request("/dashboard", { cookie: who.cookie }), context: context() }))!
    .permissions;
const actions = async (id: string) =>
  (await db().selectFrom("audit_log").select("action").where("target_id", "=", id).execute()).map(
    (r) => r.action,
  );

beforeAll(async () => {
  await setupDatabase();
  superAdmin = await person(["super_admin"]);
  admin = await person(["admin"]);
  otherAdmin = await person(["admin"]);
  requester = await person(["user"]);
  await createRole(
    { id: superAdmin.id, email: superAdmin.email, isSuperAdmin: true, permissions: new Set() },
    { name: "roles_only", label: "Roles only", permissions: ["dashboard.access", "roles.manage"] },
    { request: new Request("http://localhost/") },
  );
  rolesOnly = await person(["roles_only"]);
  // Marked requestable through the roles API, as an admin of the matrix would.
  const made = await call(
    "PATCH",
    "/api/roles/admin",
    superAdmin,
    { requestable: true, maxRequestHours: 8 },
    {
      name: "admin",
    },
  );
  expect(made.status).toBe(200);
  expect(made.body).toMatchObject({ requestable: true, maxRequestHours: 8 });
});

describe("asking for a role and having it approved", () => {
  it("grants it at once for the hours asked, to that person only, told to both sides; never by oneself", async () => {
    const created = await ask(requester, { role: "admin", hours: 1, reason: "Release night" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "pending", hours: 1, mayDecide: false, grantId: null });
    const id = created.body.id as string;
    // The deciders hear of it in the app and by email; the requester and those who may not decide do not.
    const told = await db()
      .selectFrom("notification")
      .select("user_id")
      .where("link", "like", `%${id}`)
      .execute();
    const toldIds = told.map((n) => n.user_id);
    expect(toldIds).toEqual(expect.arrayContaining([superAdmin.id, admin.id, otherAdmin.id]));
    expect(toldIds).not.toContain(requester.id);
    expect(toldIds).not.toContain(rolesOnly.id);
    expect(postmark.fake.messages.map((m) => m.To)).toContain(admin.email);

    // Someone with roles.manage but not the role's permissions neither sees nor decides it.
    expect(((await call("GET", "/api/access-requests", rolesOnly)).body.requests as unknown[]).length).toBe(
      0,
    );
    expect((await decide(rolesOnly, id, "approve")).status).toBe(403);
    // The requester lacks roles.manage: 403 at the door.
    expect((await decide(requester, id, "approve")).status).toBe(403);
    const listed = (await call("GET", "/api/access-requests?status=pending", admin)).body.requests as {
      id: string;
      mayDecide: boolean;
    }[];
    expect(listed.find((r) => r.id === id)?.mayDecide).toBe(true);

    expect(await permissionsOf(requester)).not.toContain("settings.manage");
    const approved = await decide(admin, id, "approve", { comment: "Go ahead" });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: "approved",
      comment: "Go ahead",
      decidedBy: { id: admin.id },
    });
    expect(await permissionsOf(requester)).toContain("settings.manage");
    const grant = await db()
      .selectFrom("user_role")
      .select(["id", "expires_at"])
      .where("id", "=", approved.body.grantId as string)
      .executeTakeFirstOrThrow();
    const hour = Date.parse(new Date(grant.expires_at!).toISOString()) - Date.now();
    expect(hour).toBeGreaterThan(3_500_000);
    expect(hour).toBeLessThanOrEqual(3_600_000);
    // A second decision, either way, finds it decided.
    expect((await decide(otherAdmin, id, "approve")).status).toBe(409);
    expect((await decide(otherAdmin, id, "deny", { comment: "No" })).status).toBe(409);
    expect(await actions(id)).toEqual(
      expect.arrayContaining(["access_request.created", "access_request.approved"]),
    );
    const told2 = await db()
      .selectFrom("notification")
      .select("title")
      .where("user_id", "=", requester.id)
      .where("link", "like", `%${id}`)
      .execute();
    expect(told2).toHaveLength(1);

    // After the hour it gives nothing, before any cleanup (the hour is moved back here; the
    // session cache drops what the database changed under it, as a grant's own change does).
    await db()
      .updateTable("user_role")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", grant.id)
      .execute();
    await invalidateSessions();
    expect(await permissionsOf(requester)).not.toContain("settings.manage");
  });

  it("never lets someone decide their own request, even with every permission it needs", async () => {
    await createRole(
      { id: superAdmin.id, email: superAdmin.email, isSuperAdmin: true, permissions: new Set() },
      { name: "on_call", label: "On call", permissions: ["dashboard.access", "settings.manage"] },
      { request: new Request("http://localhost/") },
    );
    await call(
      "PATCH",
      "/api/roles/on_call",
      superAdmin,
      { requestable: true, maxRequestHours: 4 },
      { name: "on_call" },
    );
    // Asked while it gave something new: a person with roles.manage but not settings.manage…
    const asker = await person(["roles_only"]);
    const own = await ask(asker, { role: "on_call", hours: 2, reason: "Pager" });
    expect(own.status).toBe(201);
    const id = own.body.id as string;
    // …who since gained every permission it needs (an admin now) still cannot decide it.
    const adminRole = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "admin")
      .executeTakeFirstOrThrow();
    await db().insertInto("user_role").values({ user_id: asker.id, role_id: adminRole.id }).execute();
    await invalidateSessions();
    expect(await permissionsOf(asker)).toContain("settings.manage");
    expect((await decide(asker, id, "approve")).status).toBe(403);
    // Asking now would change nothing: held.
    expect((await ask(otherAdmin, { role: "on_call", hours: 2, reason: "Pager" })).status).toBe(409);
    expect(
      (
        await db()
          .selectFrom("access_request")
          .select("status")
          .where("id", "=", id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe("pending");
    expect((await decide(admin, id, "approve")).status).toBe(200);
  });
});

describe("refusals", () => {
  it("refuses bad requests: unrequestable, too long, held, a second pending one, a team one is not in", async () => {
    const someone = await person(["user"]);
    expect((await ask(someone, { role: "manager", hours: 1, reason: "x" })).body).toMatchObject({
      field: "role",
    });
    expect((await ask(someone, { role: "super_admin", hours: 1, reason: "x" })).status).toBe(400);
    expect((await ask(someone, { role: "admin", hours: 9, reason: "x" })).body).toMatchObject({
      field: "hours",
    });
    for (const body of [
      { role: "admin", hours: 0, reason: "x" },
      { role: "admin", hours: 1, reason: "" },
      { role: "admin", hours: 1, reason: "a\u202eb" },
      { role: "admin", hours: 1, reason: "x", extra: true },
      { role: "admin", hours: "1", reason: "x" },
    ])
      expect((await ask(someone, body)).status, JSON.stringify(body)).toBe(400);
    expect((await ask(someone, { role: "user", hours: 1, reason: "x" })).status).toBe(400);
    const elsewhere = await createTeam(db(), "Not mine");
    expect(
      (await ask(someone, { role: "admin", team: elsewhere, hours: 1, reason: "x" })).body,
    ).toMatchObject({
      field: "team",
    });
    expect((await ask(someone, { role: "admin", hours: 2, reason: "first" })).status).toBe(201);
    expect((await ask(someone, { role: "admin", hours: 2, reason: "again" })).status).toBe(409);
    // Held already (over everyone): 409 too; so for a super admin, who holds everything any role gives.
    expect((await ask(admin, { role: "admin", hours: 1, reason: "x" })).status).toBe(409);
    expect((await ask(superAdmin, { role: "admin", hours: 1, reason: "x" })).status).toBe(409);
  });

  it("denies only with a comment, tells the requester, and ends unanswered requests after 72 h", async () => {
    const someone = await person(["user"]);
    const id = (await ask(someone, { role: "admin", hours: 3, reason: "Audit prep" })).body.id as string;
    expect((await decide(admin, id, "deny", {})).status).toBe(400);
    expect((await decide(admin, id, "deny", { comment: "   " })).status).toBe(400);
    const denied = await decide(admin, id, "deny", { comment: "Ask your lead first" });
    expect(denied.body).toMatchObject({ status: "denied", comment: "Ask your lead first", grantId: null });
    expect(await permissionsOf(someone)).not.toContain("settings.manage");
    expect(await actions(id)).toContain("access_request.denied");
    expect(
      await db().selectFrom("notification").select("id").where("user_id", "=", someone.id).execute(),
    ).toHaveLength(1);

    const late = (await ask(someone, { role: "admin", hours: 3, reason: "Later" })).body.id as string;
    await db()
      .updateTable("access_request")
      .set({ created_at: new Date(Date.now() - 73 * 3_600_000).toISOString() })
      .where("id", "=", late)
      .execute();
    // Past its 72 h it reads as expired and cannot be decided, before the hourly job runs.
    const mine = (await call("GET", "/api/access-requests", { ...someone })).body.requests as {
      id: string;
      status: string;
    }[];
    expect(mine.find((r) => r.id === late)?.status).toBe("expired");
    expect((await decide(admin, late, "approve")).status).toBe(409);
    expect(await expireAccessRequests()).toBeGreaterThanOrEqual(1);
    expect(await actions(late)).toContain("access_request.expired");
    expect((await decide(admin, crypto.randomUUID(), "approve")).status).toBe(404);
  });
});

describe("the roles tab's switch", () => {
  const setHours = async (who: Person, roleId: string, hours: string) =>
    run(() =>
      accessPage.action(
        args(
          request("/dashboard/access", {
            cookie: who.cookie,
            method: "POST",
            body: new URLSearchParams({ intent: "role-requestable", roleId, hours }),
          }),
        ),
      ),
    );
  const stored = (id: string) =>
    db()
      .selectFrom("role")
      .select(["requestable", "max_request_hours"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("makes a role requestable for some hours, and blank turns it off; only for those who may edit the role", async () => {
    const { id } = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "manager")
      .executeTakeFirstOrThrow();
    expect((await setHours(superAdmin, id, "6")).status).toBe(302);
    expect(await stored(id)).toEqual({ requestable: 1, max_request_hours: 6 });
    expect((await call("GET", "/api/access-requests", requester)).status).toBe(200);
    // roles.manage without the role's permissions: the matrix's rule, refused.
    expect((await setHours(rolesOnly, id, "8")).status).toBe(403);
    expect((await setHours(superAdmin, id, "721")).status).toBe(400);
    expect(await stored(id)).toEqual({ requestable: 1, max_request_hours: 6 });
    expect((await setHours(superAdmin, id, "")).status).toBe(302);
    expect(await stored(id)).toEqual({ requestable: 0, max_request_hours: null });
  });
});

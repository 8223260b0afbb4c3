import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { createTeam, grant } from "../../test/support/teams";
import { answerProblem } from "../api-docs/check-answer";
import { db } from "../db.server";
import * as explainRoute from "../routes/api.access.explain";
import * as whoRoute from "../routes/api.access.who";
import * as rolesRoute from "../routes/api.roles";
import * as grantsRoute from "../routes/api.users.$id.roles";
import * as grantRoute from "../routes/api.users.$id.roles.$grantId";
import * as accessPage from "../routes/dashboard.access/route";

// The contract's "Role grants", "Scope" and "Explain, who" (docs/http-contract.md), played as the
// team lead of Sales against Marketing and against a global admin (SECURITY-PLAYBOOK §4-5).

let salesLead: { id: string; cookie: string };
let admin: { id: string; cookie: string };
let superAdmin: { id: string; cookie: string };
let salesMember: string;
let marketingMember: string;
let sales: string;
let marketing: string;

const json = (body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { "Content-Type": "application/json" },
});

async function as(
  who: { cookie: string },
  route: { loader?: unknown; action?: unknown },
  path: string,
  init: Record<string, unknown> = {},
  params: Record<string, string> = {},
) {
  const req = request(path, { cookie: who.cookie, ...init });
  const fn = (req.method === "GET" ? route.loader : route.action) as (a: never) => unknown;
  const res = await run(() => fn(args(req, params)));
  // Every answer here is one the API description allows (app/api-docs).
  if (path.startsWith("/api/")) expect(answerProblem(req.method, path, res.status, res.body)).toBeNull();
  return res;
}

beforeAll(async () => {
  await setupDatabase();
  const lead = await createUser({ roles: ["user"], name: "Lead of Sales" });
  salesMember = (await createUser({ roles: ["user"], name: "Sam Sales" })).id;
  marketingMember = (await createUser({ roles: ["user"], name: "Mia Marketing" })).id;
  sales = await createTeam(db(), "Sales", [lead.id, salesMember]);
  marketing = await createTeam(db(), "Marketing", [marketingMember]);
  await grant(db(), lead.id, "admin", sales);
  salesLead = { id: lead.id, cookie: await sessionCookieFor(lead.id) };
  const a = await createUser({ roles: ["admin"], name: "Ada Admin" });
  admin = { id: a.id, cookie: await sessionCookieFor(a.id) };
  const s = await createUser({ roles: ["super_admin"], name: "Sue Super" });
  superAdmin = { id: s.id, cookie: await sessionCookieFor(s.id) };
});

const rolesOf = (id: string) => `/api/users/${id}/roles`;

describe("GET/POST/DELETE /api/users/:id/roles", () => {
  it("a scoped lead reads a Sales member's grants; a Marketing member is 404, not 403", async () => {
    const ok = await as(salesLead, grantsRoute, rolesOf(salesMember), {}, { id: salesMember });
    expect(ok.status).toBe(200);
    expect((ok.body as { grants: { role: { name: string }; team: null }[] }).grants).toMatchObject([
      { role: { name: "user" }, team: null, expiresAt: null },
    ]);
    const hidden = await as(salesLead, grantsRoute, rolesOf(marketingMember), {}, { id: marketingMember });
    expect(hidden).toMatchObject({ status: 404, body: { error: "not_found" } });
    const post = await as(
      salesLead,
      grantsRoute,
      rolesOf(marketingMember),
      json({ role: "manager", team: sales }),
      {
        id: marketingMember,
      },
    );
    expect(post.status).toBe(404);
  });

  it("the lead grants within Sales what they hold there, never globally, never in Marketing", async () => {
    const made = await as(
      salesLead,
      grantsRoute,
      rolesOf(salesMember),
      json({ role: "manager", team: sales }),
      {
        id: salesMember,
      },
    );
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      role: { name: "manager" },
      team: { id: sales, name: "Sales" },
      expiresAt: null,
      grantedBy: salesLead.id,
    });
    const global = await as(salesLead, grantsRoute, rolesOf(salesMember), json({ role: "manager" }), {
      id: salesMember,
    });
    expect(global.status).toBe(403);
    const elsewhere = await as(
      salesLead,
      grantsRoute,
      rolesOf(salesMember),
      json({ role: "manager", team: marketing }),
      { id: salesMember },
    );
    // A team out of reach answers exactly as one that does not exist: no oracle for its id.
    const nowhere = await as(
      salesLead,
      grantsRoute,
      rolesOf(salesMember),
      json({ role: "manager", team: crypto.randomUUID() }),
      { id: salesMember },
    );
    expect(nowhere).toMatchObject({ status: 400, body: { field: "team" } });
    expect({ status: elsewhere.status, body: elsewhere.body }).toEqual({
      status: nowhere.status,
      body: nowhere.body,
    });
    const again = await as(
      salesLead,
      grantsRoute,
      rolesOf(salesMember),
      json({ role: "manager", team: sales }),
      {
        id: salesMember,
      },
    );
    expect(again.status).toBe(409);
    const rows = await db()
      .selectFrom("user_role")
      .select("team_id")
      .where("user_id", "=", salesMember)
      .execute();
    expect(rows.map((r) => r.team_id).sort()).toEqual([null, sales].sort());
    const audited = await db()
      .selectFrom("audit_log")
      .select(["details", "actor_id"])
      .where("action", "=", "user.role.grant")
      .where("target_id", "=", salesMember)
      .execute();
    expect(audited).toHaveLength(1);
    expect(JSON.parse(audited[0]!.details!)).toMatchObject({ role: "manager", team: { id: sales } });
  });

  it("bad input writes nothing: unknown role or team 400, past end 400, unknown user 404, super admin in a team 400", async () => {
    const before = await db().selectFrom("user_role").select("id").execute();
    const cases: [unknown, number, string?][] = [
      [{ role: "nope" }, 400, "role"],
      [{ role: "manager", team: crypto.randomUUID() }, 400, "team"],
      [{ role: "manager", team: "not-a-uuid" }, 400, "team"],
      [{ role: "manager", expiresAt: "2001-01-01T00:00:00Z" }, 400, "expiresAt"],
      [{ role: "super_admin", team: sales }, 400, "role"],
      [{ role: "manager", extra: 1 }, 400],
    ];
    for (const [body, status, field] of cases) {
      const out = await as(admin, grantsRoute, rolesOf(salesMember), json(body), { id: salesMember });
      expect(out.status, JSON.stringify(body)).toBe(status);
      if (field) expect(out.body).toMatchObject({ error: "invalid_request", field });
    }
    const nobody = crypto.randomUUID();
    expect(
      (await as(admin, grantsRoute, rolesOf(nobody), json({ role: "user" }), { id: nobody })).status,
    ).toBe(404);
    expect(await db().selectFrom("user_role").select("id").execute()).toHaveLength(before.length);
  });

  it("DELETE removes one grant (204), in its scope's rules; an unknown grant is 404", async () => {
    const grants = (await as(admin, grantsRoute, rolesOf(salesMember), {}, { id: salesMember })).body as {
      grants: { id: string; team: { id: string } | null }[];
    };
    const scoped = grants.grants.find((g) => g.team?.id === sales)!;
    const path = `${rolesOf(salesMember)}/${scoped.id}`;
    const gone = await as(
      salesLead,
      grantRoute,
      path,
      { method: "DELETE" },
      { id: salesMember, grantId: scoped.id },
    );
    expect(gone.status).toBe(204);
    const again = await as(
      salesLead,
      grantRoute,
      path,
      { method: "DELETE" },
      { id: salesMember, grantId: scoped.id },
    );
    expect(again.status).toBe(404);
    // The lead's own scoped grant is not theirs to drop, nor a Marketing member's global one to touch.
    const own = (await as(admin, grantsRoute, rolesOf(salesLead.id), {}, { id: salesLead.id })).body as {
      grants: { id: string; team: unknown }[];
    };
    const ownScoped = own.grants.find((g) => g.team)!;
    const self = await as(
      salesLead,
      grantRoute,
      `${rolesOf(salesLead.id)}/${ownScoped.id}`,
      { method: "DELETE" },
      { id: salesLead.id, grantId: ownScoped.id },
    );
    expect(self.status).toBe(403);
  });

  it("an expired grant gives nothing from its instant, before any cleanup", async () => {
    const temp = await createUser({ roles: ["user"] });
    await grant(db(), temp.id, "admin", null, new Date(Date.now() + 1500).toISOString());
    const cookie = await sessionCookieFor(temp.id);
    const who = { cookie };
    expect((await as(who, rolesRoute, "/api/roles")).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    expect((await as(who, rolesRoute, "/api/roles")).status).toBe(403);
  });
});

describe("GET /api/access/explain", () => {
  const explainOf = (who: { cookie: string }, q: Record<string, string>) =>
    as(who, explainRoute, `/api/access/explain?${new URLSearchParams(q)}`);

  it("the Sales lead and user.update: blocked by scope on Marketing, allowed through the grant in Sales", async () => {
    const out = await explainOf(admin, {
      user: salesLead.id,
      permission: "user.update",
      target: marketingMember,
    });
    expect(out).toMatchObject({
      status: 200,
      body: {
        allowed: false,
        permission: "user.update",
        superAdmin: false,
        grants: [],
        blockers: ["out_of_scope"],
      },
    });
    const yes = await explainOf(admin, {
      user: salesLead.id,
      permission: "user.update",
      target: salesMember,
    });
    expect(yes.body).toMatchObject({
      allowed: true,
      grants: [{ role: { name: "admin" }, team: { id: sales, name: "Sales" }, expiresAt: null }],
      blockers: [],
    });
    const settings = await explainOf(admin, { user: salesLead.id, permission: "settings.manage" });
    expect(settings.body).toMatchObject({ allowed: false, blockers: ["global_only"] });
  });

  it("anyone explains their own access; someone else's needs roles.manage; a hidden target is 404", async () => {
    expect((await explainOf(salesLead, { permission: "user.read" })).body).toMatchObject({ allowed: true });
    expect((await explainOf(salesLead, { user: admin.id, permission: "user.read" })).status).toBe(403);
    expect((await explainOf(salesLead, { permission: "user.read", target: marketingMember })).status).toBe(
      404,
    );
    expect((await explainOf(admin, { permission: "no.such" })).status).toBe(400);
    expect((await explainOf(admin, { user: crypto.randomUUID(), permission: "user.read" })).status).toBe(404);
  });
});

describe("GET /api/access/who", () => {
  it("lists exactly who holds settings.manage, super admins marked; Sales' lead is not among them", async () => {
    const out = await as(admin, whoRoute, "/api/access/who?permission=settings.manage");
    const body = out.body as { users: { id: string; superAdmin: boolean }[]; total: number };
    const expected = await db()
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .innerJoin("user", "user.id", "user_role.user_id")
      .select("user.id")
      .distinct()
      .where("role.name", "in", ["admin", "super_admin"])
      .where("user_role.team_id", "is", null)
      .where((eb) =>
        eb.or([
          eb("user_role.expires_at", "is", null),
          eb("user_role.expires_at", ">", new Date().toISOString()),
        ]),
      )
      .where("user.status", "=", "active")
      .execute();
    expect(body.users.map((u) => u.id).sort()).toEqual(expected.map((u) => u.id).sort());
    expect(body.total).toBe(expected.length);
    expect(body.users.find((u) => u.id === superAdmin.id)?.superAdmin).toBe(true);
    expect(body.users.find((u) => u.id === admin.id)?.superAdmin).toBe(false);
    expect(body.users.some((u) => u.id === salesLead.id)).toBe(false);
  });

  it("within a team: the global holders and Sales' lead; a CSV of the same; refused without roles.manage", async () => {
    const out = await as(admin, whoRoute, `/api/access/who?permission=user.delete&team=${sales}`);
    const ids = (out.body as { users: { id: string }[] }).users.map((u) => u.id);
    expect(ids).toContain(salesLead.id);
    expect(ids).toContain(admin.id);
    const elsewhere = await as(admin, whoRoute, `/api/access/who?permission=user.delete&team=${marketing}`);
    expect((elsewhere.body as { users: { id: string }[] }).users.map((u) => u.id)).not.toContain(
      salesLead.id,
    );
    const csv = await as(admin, whoRoute, `/api/access/who?permission=user.delete&team=${sales}&format=csv`);
    expect(csv.headers.get("Content-Type")).toContain("text/csv");
    expect(String(csv.body)).toContain('"admin in Sales"');
    expect((await as(salesLead, whoRoute, "/api/access/who?permission=user.read")).status).toBe(403);
    expect(
      (await as(admin, whoRoute, `/api/access/who?permission=user.read&team=${crypto.randomUUID()}`)).status,
    ).toBe(404);
  });
});

describe("the Who can tab", () => {
  it("lists the holders of a permission over Sales, through which grants; a bad team is no filter", async () => {
    const page = await as(
      admin,
      accessPage,
      `/dashboard/access?tab=who&permission=user.delete&team=${sales}`,
    );
    const who = (
      page.body as { who: { team: string; result: { users: { id: string; grants: { team: unknown }[] }[] } } }
    ).who;
    expect(who.team).toBe(sales);
    const lead = who.result.users.find((u) => u.id === salesLead.id);
    expect(lead?.grants).toEqual([expect.objectContaining({ team: { id: sales, name: "Sales" } })]);
    const none = await as(admin, accessPage, "/dashboard/access?tab=who");
    expect((none.body as { who: { result: unknown } }).who.result).toBeNull();
    const odd = await as(admin, accessPage, "/dashboard/access?tab=who&permission=user.read&team=nope");
    expect((odd.body as { who: { team: string } }).who.team).toBe("");
  });
});

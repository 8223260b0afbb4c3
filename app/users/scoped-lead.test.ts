import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { createTeam, grant } from "../../test/support/teams";
import { db } from "../db.server";
import { loader as rootLoader } from "../root";
import { loader as searchLoader } from "../routes/api.search";
import { loader as logsLoader } from "../routes/dashboard.logs/route";
import { loader as teamsLoader } from "../routes/dashboard.teams";
import { action as teamAction, loader as teamLoader } from "../routes/dashboard.teams.$id/route";
import { loader as listLoader } from "../routes/dashboard.users/route";
import { action as userAction, loader as userLoader } from "../routes/dashboard.users.$id/route";

// The "done when": someone granted `admin` within Sales, a day on the pages and the
// search, against Marketing (SECURITY-PLAYBOOK §4-5): out of reach is 404, never 403.

let lead: { id: string; cookie: string };
let sam: string;
let mia: string;

beforeAll(async () => {
  await setupDatabase();
  const l = await createUser({ roles: ["user"], name: "Lead of Sales" });
  sam = (await createUser({ roles: ["user"], name: "Sam Scoped", email: "sam@sales.test" })).id;
  mia = (await createUser({ roles: ["user"], name: "Mia Scoped", email: "mia@marketing.test" })).id;
  await createUser({ roles: ["user"], name: "Nobody Scoped" });
  const sales = await createTeam(db(), "Sales", [l.id, sam]);
  const marketing = await createTeam(db(), "Marketing", [mia]);
  // Rows the lead must not read: about Mia, by Mia, about Marketing.
  const row = (action: string, actor: string | null, type: string, target: string) => ({
    id: crypto.randomUUID(),
    action,
    actor_id: actor,
    actor_email: null,
    target_type: type,
    target_id: target,
    details: null,
    ip: null,
    user_agent: null,
    created_at: new Date().toISOString(),
  });
  await db()
    .insertInto("audit_log")
    .values([
      row("user.update", null, "user", mia),
      row("team.update", mia, "team", marketing),
      row("team.update", null, "team", marketing),
    ])
    .execute();
  await grant(db(), l.id, "admin", sales);
  lead = { id: l.id, cookie: await sessionCookieFor(l.id) };
});

const page = (path: string, params: Record<string, string> = {}) =>
  args(request(path, { cookie: lead.cookie }), params);

describe("a lead granted admin within Sales", () => {
  it("lists Sales' people only, and finds only them", async () => {
    const list = await run(() => listLoader(page("/dashboard/users?q=Scoped")));
    expect(list.status).toBe(200);
    const names = (list.body as { rows: { name: string }[]; total: number }).rows.map((r) => r.name);
    expect(names).toEqual(["Sam Scoped"]);
    const all = await run(() => listLoader(page("/dashboard/users")));
    const everyone = all.body as { rows: { id: string }[]; total: number };
    expect(everyone.rows.map((r) => r.id).sort()).toEqual([lead.id, sam].sort());
    expect(everyone.total).toBe(2);
    const found = await run(() => searchLoader(page("/api/search?q=Scoped")));
    expect((found.body as { users: { name: string }[] }).users.map((u) => u.name)).toEqual(["Sam Scoped"]);
    const teams = await run(() => searchLoader(page("/api/search?q=a")));
    expect((teams.body as { teams: { name: string }[] }).teams.map((t) => t.name)).toEqual(["Sales"]);
  });

  it("opens a Sales member's page with edits offered; a Marketing member's page is 404, as are its actions", async () => {
    const own = await run(() => userLoader(page(`/dashboard/users/${sam}`, { id: sam })));
    expect(own.status).toBe(200);
    expect((own.body as { may: { update: boolean; delete: boolean } }).may).toMatchObject({
      update: true,
      delete: true,
    });
    const other = await run(() => userLoader(page(`/dashboard/users/${mia}`, { id: mia })));
    expect(other.status).toBe(404);
    const disable = (id: string) =>
      run(() =>
        userAction(
          args(formRequest(`/dashboard/users/${id}`, { intent: "disable" }, { cookie: lead.cookie }), { id }),
        ),
      );
    expect((await disable(mia)).status).toBe(404);
    const mias = await db()
      .selectFrom("user")
      .select("status")
      .where("id", "=", mia)
      .executeTakeFirstOrThrow();
    expect(mias.status).toBe("active");
    const done = await disable(sam);
    expect(done.status).toBe(302);
    const sams = await db()
      .selectFrom("user")
      .select("status")
      .where("id", "=", sam)
      .executeTakeFirstOrThrow();
    expect(sams.status).toBe("disabled");
  });

  it("reads the audit rows about Sales and its people, none about Marketing's", async () => {
    const log = await run(() => logsLoader(page("/dashboard/logs")));
    expect(log.status).toBe(200);
    const rows = (log.body as { rows: { target: { id: string } | null; actor: { id: string | null } }[] })
      .rows;
    // The disabling above is about Sam; nothing names Mia.
    expect(rows.some((r) => r.target?.id === sam)).toBe(true);
    expect(rows.some((r) => r.target?.id === mia || r.actor.id === mia)).toBe(false);
    const hers = await run(() => logsLoader(page(`/dashboard/logs?person=${mia}`)));
    expect((hers.body as { rows: unknown[] }).rows).toEqual([]);
  });

  it("the Access card says why, and the lead grants and revokes a role within Sales from the page", async () => {
    const own = await run(() => userLoader(page(`/dashboard/users/${lead.id}`, { id: lead.id })));
    const access = (
      own.body as { access: { permission: string; scope: string; grants: { team: { name: string } }[] }[] }
    ).access;
    const del = access.find((a) => a.permission === "user.delete")!;
    expect(del).toMatchObject({ scope: "teams", grants: [{ team: { name: "Sales" } }] });
    expect(access.find((a) => a.permission === "settings.manage")).toMatchObject({
      scope: "none",
      blockers: ["global_only"],
    });
    const act = (fields: Record<string, string>) =>
      run(() =>
        userAction(
          args(formRequest(`/dashboard/users/${sam}`, fields, { cookie: lead.cookie }), { id: sam }),
        ),
      );
    const sales = (
      await db().selectFrom("team").select("id").where("name", "=", "Sales").executeTakeFirstOrThrow()
    ).id;
    const marketing = (
      await db().selectFrom("team").select("id").where("name", "=", "Marketing").executeTakeFirstOrThrow()
    ).id;
    // Marketing is out of reach: refused as a team that does not exist.
    const refused = await act({ intent: "grant-role", role: "manager", team: marketing });
    expect(refused.status).toBe(400);
    const granted = await act({ intent: "grant-role", role: "manager", team: sales, until: "2099-12-31" });
    expect(granted.status).toBe(302);
    const row = await db()
      .selectFrom("user_role")
      .select(["id", "expires_at", "granted_by"])
      .where("user_id", "=", sam)
      .where("team_id", "=", sales)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ expires_at: "2099-12-31T23:59:59.999Z", granted_by: lead.id });
    expect((await act({ intent: "revoke-grant", grant: row.id })).status).toBe(302);
    expect((await act({ intent: "revoke-grant", grant: row.id })).status).toBe(404);
    // The browser sends an empty date box: a grant without an end.
    expect((await act({ intent: "grant-role", role: "manager", team: sales, until: "" })).status).toBe(302);
    const open = await db()
      .selectFrom("user_role")
      .select("expires_at")
      .where("user_id", "=", sam)
      .where("team_id", "=", sales)
      .executeTakeFirstOrThrow();
    expect(open.expires_at).toBeNull();
  });

  it("previews what a grant in Sales would give, writing nothing; out of reach is 404 on both pages", async () => {
    const ids = async (name: string) =>
      (await db().selectFrom("team").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
    const [sales, marketing] = [await ids("Sales"), await ids("Marketing")];
    const onUser = (who: string, fields: Record<string, string>) =>
      run(() =>
        userAction(
          args(formRequest(`/dashboard/users/${who}`, fields, { cookie: lead.cookie }), { id: who }),
        ),
      );
    // Sam was disabled above (a disabled person gains nothing): a new Sales member, holding manager there.
    const kim = (await createUser({ roles: ["user"], name: "Kim Scoped" })).id;
    await db()
      .insertInto("team_member")
      .values({ team_id: sales, user_id: kim, team_role: "member", created_at: new Date().toISOString() })
      .execute();
    await grant(db(), kim, "manager", sales);
    const before = await db().selectFrom("user_role").select("id").orderBy("id").execute();
    // Admin in Sales adds only what manager there lacks.
    const preview = await onUser(kim, { intent: "preview-grant", role: "admin", team: sales });
    expect(preview.status).toBe(200);
    const gains = (
      preview.body as {
        preview: { gains: { user: { id: string }; permission: string; team: { name: string } }[] };
      }
    ).preview.gains;
    expect(gains.map((g) => `${g.user.id === kim}:${g.permission}:${g.team.name}`).sort()).toEqual([
      "true:log.read:Sales",
      "true:user.delete:Sales",
      "true:user.update:Sales",
      "true:user.write:Sales",
    ]);
    expect((await onUser(mia, { intent: "preview-grant", role: "manager", team: marketing })).status).toBe(
      404,
    );
    expect((await onUser(sam, { intent: "preview-grant", role: "manager", team: marketing })).status).toBe(
      400,
    );
    const onTeam = (team: string, fields: Record<string, string>) =>
      run(() =>
        teamAction(
          args(formRequest(`/dashboard/teams/${team}`, fields, { cookie: lead.cookie }), { id: team }),
        ),
      );
    const fromTeam = await onTeam(sales, { intent: "preview-grant", role: "admin", userId: kim });
    expect(fromTeam.status).toBe(200);
    expect((await onTeam(marketing, { intent: "preview-grant", role: "manager", userId: mia })).status).toBe(
      404,
    );
    expect(await db().selectFrom("user_role").select("id").orderBy("id").execute()).toEqual(before);
  });

  it("reads Sales' team page and grants a role in it there; Marketing's team page is 404; the teams list is Sales", async () => {
    const ids = async (name: string) =>
      (await db().selectFrom("team").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
    const [sales, marketing] = [await ids("Sales"), await ids("Marketing")];
    const list = await run(() => teamsLoader(page("/dashboard/teams")));
    expect((list.body as { teams: { name: string }[]; total: number }).teams.map((t) => t.name)).toEqual([
      "Sales",
    ]);
    expect(
      (await run(() => teamLoader(page(`/dashboard/teams/${marketing}`, { id: marketing })))).status,
    ).toBe(404);
    const own = await run(() => teamLoader(page(`/dashboard/teams/${sales}`, { id: sales })));
    const body = own.body as {
      mayWrite: boolean;
      grants: { user: { id: string }; role: { name: string } }[];
      grantForm: { people: { id: string }[]; roles: { name: string }[] };
    };
    expect(body.mayWrite).toBe(false);
    expect(body.grants).toContainEqual(
      expect.objectContaining({ user: expect.objectContaining({ id: lead.id }) }),
    );
    expect(body.grantForm.people.map((p) => p.id)).not.toContain(lead.id);
    expect(body.grantForm.roles.map((r) => r.name)).not.toContain("user");
    const act = (teamId: string, fields: Record<string, string>) =>
      run(() =>
        teamAction(
          args(formRequest(`/dashboard/teams/${teamId}`, fields, { cookie: lead.cookie }), { id: teamId }),
        ),
      );
    expect((await act(marketing, { intent: "grant-role", userId: mia, role: "manager" })).status).toBe(404);
    expect((await act(sales, { intent: "grant-role", userId: sam, role: "admin", until: "" })).status).toBe(
      302,
    );
    const made = await db()
      .selectFrom("user_role")
      .select("id")
      .where("user_id", "=", sam)
      .where("team_id", "=", sales)
      .execute();
    expect(made.length).toBeGreaterThan(0);
    // Team changes themselves stay with team.write over everyone.
    expect((await act(sales, { intent: "rename", name: "Mine now", description: "" })).status).toBe(403);
  });

  it("sees Users and Audit Logs in the sidebar but not Access control or Settings' admin pages", async () => {
    const root = await run(() => rootLoader(page("/dashboard")));
    const urls = (root.body as { sidebar: { url: string }[] }).sidebar.map((s) => s.url);
    expect(urls).toContain("/dashboard/users");
    expect(urls).toContain("/dashboard/logs");
    expect(urls).not.toContain("/dashboard/access");
    expect(urls).not.toContain("/dashboard/broadcast");
    const user = (root.body as { user: { permissions: string[]; anywhere: string[] } }).user;
    expect(user.permissions).toEqual(["dashboard.access"]);
    expect(user.anywhere).toContain("user.delete");
    expect(user.anywhere).not.toContain("settings.manage");
  });
});

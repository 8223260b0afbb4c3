import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { invalidateRoles } from "../access/role-cache.server";
import { db, now } from "../db.server";
import { loader as candidatesLoader } from "../routes/api.teams.$id.candidates";
import { action as listAction, loader as listLoader } from "../routes/dashboard.teams";
import { action as teamAction, loader as teamLoader } from "../routes/dashboard.teams.$id/route";

beforeAll(setupDatabase);

function post(path: string, cookie: string | undefined, values: Record<string, string>) {
  return formRequest(path, values, { cookie });
}
const create = (cookie: string | undefined, values: Record<string, string>) =>
  run(() => listAction(args(post("/dashboard/teams", cookie, values))));
const candidates = (teamId: string, q: string, cookie: string) =>
  run(() =>
    candidatesLoader(args(request(`/api/teams/${teamId}/candidates?q=${q}`, { cookie }), { id: teamId })),
  );
const onTeam = (id: string, cookie: string | undefined, values: Record<string, string>) =>
  run(() => teamAction(args(post(`/dashboard/teams/${id}`, cookie, values), { id })));

async function members(teamId: string) {
  return db()
    .selectFrom("team_member")
    .select(["user_id", "team_role"])
    .where("team_id", "=", teamId)
    .orderBy("user_id")
    .execute();
}

describe("teams", () => {
  it("reading needs team.read, changing needs team.write", async () => {
    const user = await signedIn(["user"]);
    expect(
      (await run(() => listLoader(args(request("/dashboard/teams", { cookie: user.cookie }))))).status,
    ).toBe(403);
    expect((await create(user.cookie, { intent: "create", name: "Nope" })).status).toBe(403);
    expect(await db().selectFrom("team").select("id").execute()).toEqual([]);
  });

  it("creates, validates, refuses duplicate names, renames and deletes with audit rows", async () => {
    const manager = await signedIn(["manager"]);
    expect((await create(manager.cookie, { intent: "create", name: "" })).status).toBe(400);
    const made = await create(manager.cookie, {
      intent: "create",
      name: "Platform",
      description: "Runs the platform",
    });
    expect(made.status).toBe(302);
    const team = await db()
      .selectFrom("team")
      .selectAll()
      .where("name", "=", "Platform")
      .executeTakeFirstOrThrow();
    expect((await create(manager.cookie, { intent: "create", name: "Platform" })).status).toBe(403);

    expect(
      (await onTeam(team.id, manager.cookie, { intent: "rename", name: "Core", description: "" })).status,
    ).toBe(302);
    const audit = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "team.update")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details!)).toMatchObject({
      before: { name: "Platform" },
      after: { name: "Core" },
    });

    expect((await onTeam(team.id, manager.cookie, { intent: "delete" })).status).toBe(302);
    expect(await db().selectFrom("team").select("id").where("id", "=", team.id).execute()).toEqual([]);
    expect((await onTeam(team.id, manager.cookie, { intent: "delete" })).status).toBe(404);
  });

  it("adds members, changes their team role, removes them; a user can be in many teams", async () => {
    const manager = await signedIn(["manager"]);
    await create(manager.cookie, { intent: "create", name: "Alpha" });
    await create(manager.cookie, { intent: "create", name: "Beta" });
    const alpha = await db()
      .selectFrom("team")
      .select("id")
      .where("name", "=", "Alpha")
      .executeTakeFirstOrThrow();
    const beta = await db()
      .selectFrom("team")
      .select("id")
      .where("name", "=", "Beta")
      .executeTakeFirstOrThrow();
    const person = await createUser({ name: "Findable Person" });

    expect(
      (
        await onTeam(alpha.id, manager.cookie, {
          intent: "set-member",
          userId: person.id,
          teamRole: "member",
        })
      ).status,
    ).toBe(302);
    expect(
      (await onTeam(beta.id, manager.cookie, { intent: "set-member", userId: person.id, teamRole: "lead" }))
        .status,
    ).toBe(302);
    expect(await members(alpha.id)).toEqual([{ user_id: person.id, team_role: "member" }]);
    expect(
      (await onTeam(alpha.id, manager.cookie, { intent: "set-member", userId: person.id, teamRole: "lead" }))
        .status,
    ).toBe(302);
    expect(await members(alpha.id)).toEqual([{ user_id: person.id, team_role: "lead" }]);

    expect(
      (await onTeam(alpha.id, manager.cookie, { intent: "set-member", userId: person.id, teamRole: "owner" }))
        .status,
    ).toBe(400);
    expect(
      (
        await onTeam(alpha.id, manager.cookie, {
          intent: "set-member",
          userId: randomUUID(),
          teamRole: "member",
        })
      ).status,
    ).toBe(403);

    const page = await candidates(alpha.id, "findable", manager.cookie);
    // Already in Alpha: the picker (which adds) does not offer them again.
    expect((page.body as { candidates: { id: string }[] }).candidates).toEqual([]);

    expect(
      (await onTeam(alpha.id, manager.cookie, { intent: "remove-member", userId: person.id })).status,
    ).toBe(302);
    expect(await members(alpha.id)).toEqual([]);
    expect(await members(beta.id)).toEqual([{ user_id: person.id, team_role: "lead" }]);
    expect(
      (await onTeam(alpha.id, manager.cookie, { intent: "remove-member", userId: person.id })).status,
    ).toBe(404);

    const list = await run(() => listLoader(args(request("/dashboard/teams", { cookie: manager.cookie }))));
    const teams = (list.body as { teams: { name: string; members: number }[] }).teams;
    expect(teams.map((t) => [t.name, Number(t.members)])).toEqual([
      ["Alpha", 0],
      ["Beta", 1],
    ]);
  });

  it("404s for an unknown team", async () => {
    const manager = await signedIn(["manager"]);
    expect(
      (
        await run(() =>
          teamLoader(args(request("/dashboard/teams/x", { cookie: manager.cookie }), { id: "x" })),
        )
      ).status,
    ).toBe(404);
  });

  it("member search needs user.read: a team-only role finds nobody, and nothing changes", async () => {
    const ts = now();
    const roleId = randomUUID();
    await db()
      .insertInto("role")
      .values({ id: roleId, name: "team_only", label: "Team only", created_at: ts, updated_at: ts })
      .execute();
    const perms = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "in", ["dashboard.access", "team.read", "team.write"])
      .execute();
    await db()
      .insertInto("role_permission")
      .values(perms.map((p) => ({ role_id: roleId, permission_id: p.id })))
      .execute();
    invalidateRoles();
    await createUser({ email: "sam-searchable@example.test", name: "Sam Searchable" });
    const teamOnly = await signedIn(["team_only"]);
    const manager = await signedIn(["manager"]);
    const created = await create(manager.cookie, { intent: "create", name: "Search team" });
    const teamId = created.headers.get("Location")!.split("/").pop()!;
    const before = await db().selectFrom("team_member").selectAll().execute();

    const refused = await candidates(teamId, "searchable", teamOnly.cookie);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: "forbidden", permission: "user.read" });
    // The team page hides the picker from them.
    const page = await run(() =>
      teamLoader(args(request(`/dashboard/teams/${teamId}`, { cookie: teamOnly.cookie }), { id: teamId })),
    );
    expect(page.body).toMatchObject({ maySearch: false });
    const allowed = await candidates(teamId, "searchable", manager.cookie);
    expect(allowed.body).toEqual({
      q: "searchable",
      candidates: [expect.objectContaining({ email: "sam-searchable@example.test" })],
    });
    // Without team.write, no picker at all; an unknown or malformed team is 404, not everyone.
    const reader = await signedIn(["user"]);
    expect((await candidates(teamId, "searchable", reader.cookie)).status).toBe(403);
    expect((await candidates(randomUUID(), "searchable", manager.cookie)).status).toBe(404);
    expect((await candidates("x", "searchable", manager.cookie)).status).toBe(404);
    expect(await db().selectFrom("team_member").selectAll().execute()).toEqual(before);
  });

  it("member search: at most 20, active people only, never someone already in the team", async () => {
    const manager = await signedIn(["manager"]);
    const created = await create(manager.cookie, { intent: "create", name: "Limit team" });
    const teamId = created.headers.get("Location")!.split("/").pop()!;
    const people = [];
    for (let i = 0; i < 23; i++)
      people.push(
        await createUser({ name: `Quokka ${String(i).padStart(2, "0")}`, email: `quokka${i}@example.test` }),
      );
    const disabled = await createUser({ name: "Quokka Disabled", email: "quokka-off@example.test" });
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", disabled.id).execute();
    const member = people[0]!;
    expect(
      (await onTeam(teamId, manager.cookie, { intent: "set-member", userId: member.id, teamRole: "member" }))
        .status,
    ).toBe(302);

    const found = async (q: string) => {
      const out = await candidates(teamId, q, manager.cookie);
      return (out.body as { candidates: { id: string; name: string }[] }).candidates;
    };
    const all = await found("quokka");
    expect(all).toHaveLength(20);
    expect(all.map((c) => c.id)).not.toContain(member.id);
    expect(all.map((c) => c.id)).not.toContain(disabled.id);
    expect(all[0]!.name).toBe("Quokka 01");
    expect(await found("quokka%2000")).toEqual([]);
    expect(await found("disabled")).toEqual([]);
    expect((await found("quokka 22")).map((c) => c.id)).toEqual([people[22]!.id]);
  });

  // PostgreSQL text cannot compare NUL: this search was a 500 there. It finds nobody, as on SQLite.
  it("searching for text with NUL finds nobody", async () => {
    const manager = await signedIn(["manager"]);
    const created = await create(manager.cookie, { intent: "create", name: "Nul team" });
    const teamId = created.headers.get("Location")!.split("/").pop()!;
    const out = await candidates(teamId, "a%00", manager.cookie);
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ candidates: [] });
  });
});

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { type FormFields, formRequest } from "../../test/support/forms";
import { invalidateRoles } from "../access/role-cache.server";
import { db, now } from "../db.server";
import { readToast } from "../http/toast.server";
import { action, loader } from "../routes/dashboard.teams.$id/route";

// Several people added at once (issue 36, 10), and the search of a team's members.

beforeAll(setupDatabase);

const onTeam = (id: string, cookie: string, values: FormFields) =>
  run(() => action(args(formRequest(`/dashboard/teams/${id}`, values, { cookie }), { id })));

async function newTeam(name: string) {
  const id = randomUUID();
  await db()
    .insertInto("team")
    .values({ id, name, description: "", created_at: now(), updated_at: now() })
    .execute();
  return id;
}

const members = (teamId: string) =>
  db()
    .selectFrom("team_member")
    .select(["user_id", "team_role"])
    .where("team_id", "=", teamId)
    .orderBy("user_id")
    .execute();

async function toastOf(out: { headers: Headers }) {
  const cookie = out.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  return (await readToast(new Request("http://localhost/", { headers: { Cookie: cookie } }))).toast;
}

describe("add members", () => {
  it("adds several people in one request, one audit row each, and names them in the toast", async () => {
    const manager = await signedIn(["manager"]);
    const team = await newTeam(`Several ${randomUUID().slice(0, 6)}`);
    const people = await Promise.all(
      ["Ada", "Brook", "Cyd"].map((n) => createUser({ name: `${n} Several`, roles: ["user"] })),
    );
    const out = await onTeam(team, manager.cookie, {
      intent: "add-members",
      userIds: people.map((p) => p.id),
      teamRole: "lead",
    });
    expect(out.status).toBe(302);
    expect((await toastOf(out))?.message).toBe("Added 3 members: Ada Several, Brook Several, Cyd Several.");
    expect(await members(team)).toEqual(
      people
        .map((p) => ({ user_id: p.id, team_role: "lead" }))
        .sort((a, b) => a.user_id.localeCompare(b.user_id)),
    );
    const rows = await db()
      .selectFrom("audit_log")
      .select(["actor_id", "details"])
      .where("action", "=", "team.member.add")
      .where("target_id", "=", team)
      .execute();
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.actor_id === manager.id)).toBe(true);

    // Again, with one newcomer: the members keep their role and are named as already there.
    const newcomer = await createUser({ name: "Dee Several", roles: ["user"] });
    const again = await onTeam(team, manager.cookie, {
      intent: "add-members",
      userIds: [people[0]!.id, newcomer.id, newcomer.id],
      teamRole: "member",
    });
    expect((await toastOf(again))?.message).toBe("Added Dee Several. Ada Several was already a member.");
    expect((await members(team)).find((m) => m.user_id === people[0]!.id)?.team_role).toBe("lead");
    expect(await members(team)).toHaveLength(4);
  });

  it("refuses no one, a malformed id, too many, or an id of no one, and adds nobody", async () => {
    const manager = await signedIn(["manager"]);
    const team = await newTeam(`Refused ${randomUUID().slice(0, 6)}`);
    const person = await createUser({ roles: ["user"] });
    for (const userIds of [[], ["not-a-uuid"], Array.from({ length: 51 }, () => randomUUID())]) {
      const out = await onTeam(team, manager.cookie, { intent: "add-members", userIds, teamRole: "member" });
      expect(out.status, JSON.stringify(userIds).slice(0, 40)).toBe(400);
    }
    const ghost = await onTeam(team, manager.cookie, {
      intent: "add-members",
      userIds: [person.id, randomUUID()],
      teamRole: "member",
    });
    expect(ghost.status).toBe(403);
    expect(await members(team)).toEqual([]);
  });

  it("needs user.read as well as team.write (the toast names people), and adds only active accounts", async () => {
    const ts = now();
    const roleId = randomUUID();
    await db()
      .insertInto("role")
      .values({ id: roleId, name: "teams_only", label: "Teams only", created_at: ts, updated_at: ts })
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
    const teamsOnly = await signedIn(["teams_only"]);
    const team = await newTeam(`Names ${randomUUID().slice(0, 6)}`);
    const person = await createUser({ roles: ["user"] });
    const blind = await onTeam(team, teamsOnly.cookie, {
      intent: "add-members",
      userIds: [person.id],
      teamRole: "member",
    });
    expect(blind.status).toBe(403);
    const manager = await signedIn(["manager"]);
    const disabled = await createUser({ roles: ["user"], status: "disabled" });
    const out = await onTeam(team, manager.cookie, {
      intent: "add-members",
      userIds: [disabled.id],
      teamRole: "member",
    });
    expect(out.status).toBe(403);
    expect(await members(team)).toEqual([]);
  });

  it("needs team.write", async () => {
    const reader = await signedIn(["user"]);
    const team = await newTeam(`Guarded ${randomUUID().slice(0, 6)}`);
    const person = await createUser({ roles: ["user"] });
    const out = await onTeam(team, reader.cookie, {
      intent: "add-members",
      userIds: [person.id],
      teamRole: "member",
    });
    expect(out.status).toBe(403);
    expect(await members(team)).toEqual([]);
  });
});

describe("the member search", () => {
  it("keeps the members whose name or email holds the text", async () => {
    const manager = await signedIn(["manager"]);
    const tag = randomUUID().slice(0, 6);
    const team = await newTeam(`Searched ${tag}`);
    const kept = await createUser({ name: `Findme ${tag}`, roles: ["user"] });
    const other = await createUser({ name: `Other ${tag}`, roles: ["user"] });
    await onTeam(team, manager.cookie, {
      intent: "add-members",
      userIds: [kept.id, other.id],
      teamRole: "member",
    });
    const page = await run(() =>
      loader(
        args(request(`/dashboard/teams/${team}?member=findme`, { cookie: manager.cookie }), { id: team }),
      ),
    );
    const body = page.body as { member: string; team: { members: { id: string }[]; memberCount: number } };
    expect(body.member).toBe("findme");
    expect(body.team.members.map((m) => m.id)).toEqual([kept.id]);
    expect(body.team.memberCount).toBe(2);
  });
});

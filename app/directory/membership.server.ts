import { randomUUID } from "node:crypto";
import { liveGlobal } from "../access/grant-rows.server";
import { roleGrants } from "../access/role-cache.server";
import { audit } from "../audit/audit.server";
import { type Executor, now } from "../db.server";
import type { Directory } from "./directories.server";
import type { ScimContext } from "./scope.server";

// People a directory does not manage keep whatever an admin gave them.

const CHUNK = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

function mappingOf(directory: Directory, groupName: string) {
  const name = groupName.toLowerCase();
  return directory.groupRoles.filter((g) => g.group.toLowerCase() === name);
}

async function managedOf(trx: Executor, directory: Directory, userIds: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const part of chunks([...new Set(userIds)])) {
    const rows = await trx
      .selectFrom("user")
      .select("id")
      .where("id", "in", part)
      .where("directory_id", "=", directory.id)
      .where("directory_deleted_at", "is", null)
      .execute();
    out.push(...rows.map((r) => r.id));
  }
  return out;
}

/** A `user.update` audit row for each whose roles changed. */
export async function syncRoles(trx: Executor, ctx: ScimContext, userIds: string[]): Promise<string[]> {
  const { directory } = ctx;
  const managed = await managedOf(trx, directory, userIds);
  if (managed.length === 0) return [];
  const grants = await roleGrants();
  const changed: string[] = [];
  for (const part of chunks(managed)) {
    const [memberships, current] = await Promise.all([
      trx
        .selectFrom("directory_group_member as m")
        .innerJoin("directory_group as g", "g.id", "m.group_id")
        .select(["m.user_id", "g.display_name"])
        .where("g.directory_id", "=", directory.id)
        .where("m.user_id", "in", part)
        .execute(),
      trx
        .selectFrom("user_role")
        .select(["user_id", "role_id"])
        .where("user_id", "in", part)
        .where(liveGlobal)
        .execute(),
    ]);
    for (const userId of part) {
      const want = new Set<string>(directory.defaultRoleId ? [directory.defaultRoleId] : []);
      for (const m of memberships)
        if (m.user_id === userId) for (const g of mappingOf(directory, m.display_name)) want.add(g.roleId);
      // A role deleted since, or one that grew into super admin, is not given.
      for (const id of want) if (!grants.get(id) || grants.get(id)!.all) want.delete(id);
      const have = current.filter((r) => r.user_id === userId).map((r) => r.role_id);
      if (have.length === want.size && have.every((r) => want.has(r))) continue;
      // The directory owns global roles; grants within a team are given by hand on the team page.
      await trx.deleteFrom("user_role").where("user_id", "=", userId).where("team_id", "is", null).execute();
      if (want.size)
        await trx
          .insertInto("user_role")
          .values([...want].map((role_id) => ({ user_id: userId, role_id })))
          .execute();
      await trx.updateTable("user").set({ updated_at: now() }).where("id", "=", userId).execute();
      await audit(
        ctx.origin,
        {
          action: "user.update",
          actor: { id: null, email: ctx.actor.email },
          target: { type: "user", id: userId },
          details: { before: { roles: have }, after: { roles: [...want] } },
        },
        trx,
      );
      changed.push(userId);
    }
  }
  return changed;
}

/** The team is found by name, or created. */
export async function syncTeam(
  trx: Executor,
  ctx: ScimContext,
  group: { id: string; display_name: string; team_id: string | null },
) {
  const { directory } = ctx;
  if (!mappingOf(directory, group.display_name).some((g) => g.team)) return;
  const actor = { id: null, email: ctx.actor.email };
  let teamId = group.team_id;
  if (!teamId) {
    const existing = await trx
      .selectFrom("team")
      .select("id")
      .where("name", "=", group.display_name)
      .executeTakeFirst();
    teamId = existing?.id ?? randomUUID();
    if (!existing) {
      const ts = now();
      const after = { name: group.display_name, description: `Kept in step with ${directory.name}.` };
      await trx
        .insertInto("team")
        .values({ id: teamId, ...after, created_at: ts, updated_at: ts })
        .execute();
      await audit(
        ctx.origin,
        { action: "team.create", actor, target: { type: "team", id: teamId }, details: { after } },
        trx,
      );
    }
    await trx.updateTable("directory_group").set({ team_id: teamId }).where("id", "=", group.id).execute();
  }
  const members = await trx
    .selectFrom("directory_group_member as m")
    .innerJoin("user", "user.id", "m.user_id")
    .select("m.user_id")
    .where("m.group_id", "=", group.id)
    .where("user.directory_id", "=", directory.id)
    .where("user.directory_deleted_at", "is", null)
    .execute();
  const inTeam = await trx
    .selectFrom("team_member")
    .innerJoin("user", "user.id", "team_member.user_id")
    .select("team_member.user_id")
    .where("team_member.team_id", "=", teamId)
    .where("user.directory_id", "=", directory.id)
    .execute();
  const want = new Set(members.map((m) => m.user_id));
  const have = new Set(inTeam.map((m) => m.user_id));
  const target = { type: "team", id: teamId };
  for (const userId of want) {
    if (have.has(userId)) continue;
    await trx
      .insertInto("team_member")
      .values({ team_id: teamId, user_id: userId, team_role: "member", created_at: now() })
      .execute();
    await audit(
      ctx.origin,
      { action: "team.member.add", actor, target, details: { user: userId, after: { team_role: "member" } } },
      trx,
    );
  }
  for (const userId of have) {
    if (want.has(userId)) continue;
    await trx.deleteFrom("team_member").where("team_id", "=", teamId).where("user_id", "=", userId).execute();
    await audit(ctx.origin, { action: "team.member.remove", actor, target, details: { user: userId } }, trx);
  }
}

export function groupsOf(trx: Executor, ctx: ScimContext, userId: string) {
  return trx
    .selectFrom("directory_group")
    .select(["id", "display_name", "team_id"])
    .where("directory_id", "=", ctx.directory.id)
    .where("id", "in", (eb) =>
      eb.selectFrom("directory_group_member").select("group_id").where("user_id", "=", userId),
    )
    .execute();
}

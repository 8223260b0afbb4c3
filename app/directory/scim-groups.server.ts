import { randomUUID } from "node:crypto";
import { audit } from "../audit/audit.server";
import { invalidateSessions } from "../auth/session.server";
import { recheckViews } from "../auth/session-end.server";
import { db, type Executor, now } from "../db.server";
import { syncRoles, syncTeam } from "./membership.server";
import { ScimError } from "./scim-error";
import { type FilterAttributes, filterCondition } from "./scim-filter.server";
import { applyPatch, listPage, type Page, readPage, versionOf } from "./scim-resource";
import { SCIM, type ScimGroupInput, type ScimPatchInput, scimGroupInput } from "./scim-schema";
import { assertVersion } from "./scim-users.server";
import { type ScimContext, visibleTo } from "./scope.server";

// SCIM Groups (RFC 7643 §4.2); members must be people the directory sees.

const ATTRIBUTES: FilterAttributes = {
  id: { kind: "text", column: "directory_group.id", caseExact: true },
  displayname: { kind: "text", column: "directory_group.display_name" },
  externalid: { kind: "text", column: "directory_group.external_id", caseExact: true },
  "meta.created": { kind: "time", column: "directory_group.created_at" },
  "meta.lastmodified": { kind: "time", column: "directory_group.updated_at" },
};

type GroupRow = {
  id: string;
  display_name: string;
  external_id: string | null;
  team_id: string | null;
  created_at: string;
  updated_at: string;
};

const COLUMNS = ["id", "display_name", "external_id", "team_id", "created_at", "updated_at"] as const;

async function membersOf(groupIds: string[]) {
  const map = new Map<string, { value: string; display: string }[]>();
  if (groupIds.length === 0) return map;
  const rows = await db()
    .selectFrom("directory_group_member as m")
    .innerJoin("user", "user.id", "m.user_id")
    .select(["m.group_id", "user.id", "user.email"])
    .where("m.group_id", "in", groupIds)
    .orderBy("user.email")
    .execute();
  for (const r of rows)
    map.set(r.group_id, [...(map.get(r.group_id) ?? []), { value: r.id, display: r.email }]);
  return map;
}

function resource(ctx: ScimContext, row: GroupRow, members: { value: string; display: string }[] | null) {
  const body = {
    schemas: [SCIM.group],
    id: row.id,
    displayName: row.display_name,
    externalId: row.external_id ?? undefined,
    ...(members
      ? { members: members.map((m) => ({ ...m, type: "User", $ref: `${ctx.baseUrl}/Users/${m.value}` })) }
      : {}),
  };
  return {
    ...body,
    meta: {
      resourceType: "Group",
      created: row.created_at,
      lastModified: row.updated_at,
      location: `${ctx.baseUrl}/Groups/${row.id}`,
      version: versionOf({ ...body, updated: row.updated_at }),
    },
  };
}

async function groupRow(ctx: ScimContext, id: string, executor: Executor = db()): Promise<GroupRow> {
  const row =
    id.length <= 64
      ? await executor
          .selectFrom("directory_group")
          .select(COLUMNS)
          .where("id", "=", id)
          .where("directory_id", "=", ctx.directory.id)
          .executeTakeFirst()
      : undefined;
  if (!row) throw new ScimError(404, "No such group.");
  return row;
}

export async function getScimGroup(ctx: ScimContext, id: string, opts: { members?: boolean } = {}) {
  const row = await groupRow(ctx, id);
  const members = opts.members === false ? null : ((await membersOf([id])).get(id) ?? []);
  return resource(ctx, row, members);
}

export async function listScimGroups(
  ctx: ScimContext,
  page: Page,
  filter: string | null,
  opts: { members: boolean },
) {
  let q = db().selectFrom("directory_group").where("directory_id", "=", ctx.directory.id);
  if (filter) q = q.where(filterCondition(filter, ATTRIBUTES));
  const { total, rows } = await readPage(
    page,
    () => q.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
    (limit, offset) =>
      q.select(COLUMNS).orderBy("created_at").orderBy("id").limit(limit).offset(offset).execute(),
  );
  const members = opts.members ? await membersOf(rows.map((r) => r.id)) : null;
  return listPage(
    rows.map((r) => resource(ctx, r, members ? (members.get(r.id) ?? []) : null)),
    total,
    page,
  );
}

function parseGroup(body: unknown): ScimGroupInput {
  const parsed = scimGroupInput.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ScimError(400, `${issue.path.join(".") || "body"}: ${issue.message}`, "invalidValue");
}

async function assertMembersVisible(ctx: ScimContext, ids: string[]) {
  const unique = [...new Set(ids)];
  const condition = await visibleTo(ctx.directory);
  for (let i = 0; i < unique.length; i += 500) {
    const part = unique.slice(i, i + 500);
    const rows = await db()
      .selectFrom("user")
      .select("user.id")
      .where("user.id", "in", part)
      .where(condition)
      .execute();
    const found = new Set(rows.map((r) => r.id));
    const missing = part.find((id) => !found.has(id));
    if (missing)
      throw new ScimError(400, `Member ${missing} is not a user of this directory.`, "invalidValue");
  }
  return unique;
}

async function assertNameFree(ctx: ScimContext, name: string, exceptId?: string) {
  let q = db()
    .selectFrom("directory_group")
    .select("id")
    .where("directory_id", "=", ctx.directory.id)
    .where("display_name", "=", name);
  if (exceptId) q = q.where("id", "!=", exceptId);
  if (await q.executeTakeFirst())
    throw new ScimError(409, "A group with this displayName exists.", "uniqueness");
}

/** Members and everyone's roles and teams in one transaction. */
async function writeGroup(ctx: ScimContext, id: string | null, input: ScimGroupInput) {
  const memberIds = await assertMembersVisible(
    ctx,
    (input.members ?? []).map((m) => m.value),
  );
  await assertNameFree(ctx, input.displayName, id ?? undefined);
  const groupId = id ?? randomUUID();
  const actor = { id: null, email: ctx.actor.email };
  const changed = await db()
    .transaction()
    .execute(async (trx) => {
      const ts = now();
      const before = id ? await groupRow(ctx, id, trx) : null;
      const had = id
        ? (
            await trx
              .selectFrom("directory_group_member")
              .select("user_id")
              .where("group_id", "=", id)
              .execute()
          ).map((r) => r.user_id)
        : [];
      if (before) {
        await trx
          .updateTable("directory_group")
          .set({ display_name: input.displayName, external_id: input.externalId ?? null, updated_at: ts })
          .where("id", "=", groupId)
          .execute();
      } else {
        await trx
          .insertInto("directory_group")
          .values({
            id: groupId,
            directory_id: ctx.directory.id,
            display_name: input.displayName,
            external_id: input.externalId ?? null,
            created_at: ts,
            updated_at: ts,
          })
          .execute();
      }
      const want = new Set(memberIds);
      const added = memberIds.filter((m) => !had.includes(m));
      const removed = had.filter((m) => !want.has(m));
      for (let i = 0; i < removed.length; i += 500)
        await trx
          .deleteFrom("directory_group_member")
          .where("group_id", "=", groupId)
          .where("user_id", "in", removed.slice(i, i + 500))
          .execute();
      for (let i = 0; i < added.length; i += 500)
        await trx
          .insertInto("directory_group_member")
          .values(added.slice(i, i + 500).map((user_id) => ({ group_id: groupId, user_id })))
          .execute();
      await audit(
        ctx.origin,
        {
          action: before ? "directory.group.update" : "directory.group.create",
          actor,
          target: { type: "directory_group", id: groupId },
          details: {
            directory: ctx.directory.name,
            ...(before && before.display_name !== input.displayName
              ? { before: { displayName: before.display_name } }
              : {}),
            after: { displayName: input.displayName },
            added,
            removed,
          },
        },
        trx,
      );
      // A renamed group may map to other roles: everyone in it is rechecked.
      const affected =
        before && before.display_name !== input.displayName ? [...want, ...removed] : [...added, ...removed];
      const changed = await syncRoles(trx, ctx, affected);
      await syncTeam(trx, ctx, {
        id: groupId,
        display_name: input.displayName,
        team_id: before?.team_id ?? null,
      });
      return changed;
    });
  await invalidateSessions();
  for (const userId of changed) await recheckViews(userId);
  return groupId;
}

export async function createScimGroup(ctx: ScimContext, body: unknown) {
  const id = await writeGroup(ctx, null, parseGroup(body));
  return getScimGroup(ctx, id);
}

export async function replaceScimGroup(ctx: ScimContext, id: string, body: unknown, ifMatch: string | null) {
  const current = await getScimGroup(ctx, id);
  assertVersion(current.meta.version, ifMatch);
  await writeGroup(ctx, id, parseGroup(body));
  return getScimGroup(ctx, id);
}

export async function patchScimGroup(
  ctx: ScimContext,
  id: string,
  patch: ScimPatchInput,
  ifMatch: string | null,
) {
  const current = await getScimGroup(ctx, id);
  assertVersion(current.meta.version, ifMatch);
  const patched = applyPatch(current, patch);
  await writeGroup(ctx, id, parseGroup(patched));
  return getScimGroup(ctx, id);
}

export async function deleteScimGroup(ctx: ScimContext, id: string) {
  const row = await groupRow(ctx, id);
  const changed = await db()
    .transaction()
    .execute(async (trx) => {
      const had = (
        await trx.selectFrom("directory_group_member").select("user_id").where("group_id", "=", id).execute()
      ).map((r) => r.user_id);
      await trx.deleteFrom("directory_group").where("id", "=", id).execute();
      await syncTeam(trx, ctx, { id, display_name: row.display_name, team_id: row.team_id });
      await audit(
        ctx.origin,
        {
          action: "directory.group.delete",
          actor: { id: null, email: ctx.actor.email },
          target: { type: "directory_group", id },
          details: {
            directory: ctx.directory.name,
            before: { displayName: row.display_name, members: had.length },
          },
        },
        trx,
      );
      return syncRoles(trx, ctx, had);
    });
  await invalidateSessions();
  for (const userId of changed) await recheckViews(userId);
}

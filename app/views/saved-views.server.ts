import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import type { z } from "zod";
import type { Database } from "../../db/schema";
import { isUniqueViolation } from "../../db/unique-violation";
import { type AccessSubject, can } from "../access/check";
import type { PermissionKey } from "../access/permissions";
import { type RoleGrant, roleGrants } from "../access/role-cache.server";
import type { Actor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { auditQuery } from "../audit/query.server";
import { db, type Executor, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { isHostileKey } from "../security/client-keys";
import { listParams, userListQuery } from "../users/list.server";
import {
  type createViewSchema,
  MAX_VIEWS_PER_PERSON,
  type renameViewSchema,
  type SavedViewItem,
  VIEW_LISTS,
  type ViewList,
  viewUrl,
} from "./view-schemas";

// Saved views (decision 039); who may see one is decided here, from the session alone.

const READ: Record<ViewList, PermissionKey> = { users: "user.read", audit: "log.read" };

const SHARE: PermissionKey = "roles.manage";

/** Each owner keeps at most MAX_VIEWS_PER_PERSON. */
const SHARED_LIMIT = 200;

type Row = Selectable<Database["saved_view"]>;

// A view keeps exactly what the list would apply, never the address as sent, and no page cursor.
const LIST_SCHEMAS: Record<ViewList, z.ZodObject> = { users: userListQuery, audit: auditQuery };
const CURSORS = new Set(["after", "before"]);

/** Two addresses that show the same list give the same string; refused when the list would refuse it. */
export function normaliseQuery(list: ViewList, raw: string): string {
  const schema = LIST_SCHEMAS[list];
  const params = new URLSearchParams(raw.startsWith("?") ? raw.slice(1) : raw);
  // Refused rather than stripped, like any key a client chose.
  if ([...params.keys()].some(isHostileKey)) throw new InvalidInput("views.badQuery", "query");
  const parsed = schema.safeParse(listParams(params));
  if (!parsed.success) throw new InvalidInput("views.badQuery", "query");
  const defaults = schema.parse({}) as Record<string, unknown>;
  const value = parsed.data as Record<string, unknown>;
  const out = new URLSearchParams();
  for (const key of Object.keys(schema.shape)) {
    if (CURSORS.has(key)) continue;
    const v = value[key];
    if (v === undefined || v === null || String(v) === String(defaults[key] ?? "")) continue;
    out.set(key, String(v));
  }
  return out.toString();
}

const mayRead = (actor: AccessSubject, list: ViewList) => can(actor, READ[list]);

async function heldRoleIds(actor: Actor, grants: Map<string, RoleGrant>) {
  return [...grants.values()].filter((g) => actor.roles.includes(g.name)).map((g) => g.id);
}

function toItem(actor: Actor, row: Row, grants: Map<string, RoleGrant>): SavedViewItem {
  const role = row.shared_role_id ? grants.get(row.shared_role_id) : undefined;
  const mine = row.owner_id === actor.id;
  return {
    id: row.id,
    list: row.list,
    name: row.name,
    query: row.query,
    url: viewUrl(row.list, row.query),
    sharedWith: role ? { id: role.id, name: role.name, label: role.label } : null,
    manageable: mine || (row.shared_role_id !== null && can(actor, SHARE)),
    mine,
  };
}

async function visibleViews(actor: Actor, list: ViewList): Promise<SavedViewItem[]> {
  if (!mayRead(actor, list)) return [];
  const grants = await roleGrants();
  const roleIds = await heldRoleIds(actor, grants);
  const base = db().selectFrom("saved_view").selectAll().where("list", "=", list);
  const [own, shared] = await Promise.all([
    base.where("owner_id", "=", actor.id).execute(),
    roleIds.length
      ? base
          .where("shared_role_id", "in", roleIds)
          .where("owner_id", "!=", actor.id)
          .orderBy("name")
          .limit(SHARED_LIMIT)
          .execute()
      : Promise.resolve([]),
  ]);
  const byName = (a: Row, b: Row) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
  return [...own.sort(byName), ...shared.sort(byName)].map((r) => toItem(actor, r, grants));
}

export async function allVisibleViews(actor: Actor): Promise<SavedViewItem[]> {
  return (await Promise.all(VIEW_LISTS.map((list) => visibleViews(actor, list)))).flat();
}

/** The open view is the one whose query equals the normalised address. */
export async function viewsForList(actor: Actor, list: ViewList, url: URL) {
  const [views, grants] = await Promise.all([visibleViews(actor, list), roleGrants()]);
  let current: string | null;
  try {
    current = normaliseQuery(list, url.search);
  } catch {
    current = null;
  }
  const shareRoles = can(actor, SHARE)
    ? [...grants.values()].map((g) => ({ id: g.id, name: g.name, label: g.label }))
    : [];
  return { list, views, current, shareRoles };
}

async function nameTaken(trx: Executor, owner: string, list: ViewList, name: string, exceptId?: string) {
  let q = trx
    .selectFrom("saved_view")
    .select("id")
    .where("owner_id", "=", owner)
    .where("list", "=", list)
    .where("name", "=", name);
  if (exceptId) q = q.where("id", "!=", exceptId);
  return Boolean(await q.executeTakeFirst());
}

/** A concurrent save of the same name loses to the unique index: said as the same field error. */
function duplicateName(error: unknown, name: string): never {
  if (isUniqueViolation(error)) throw new InvalidInput("views.nameTaken", "name", { name });
  throw error;
}

function auditShared(
  origin: AuditOrigin,
  actor: Actor,
  action: "view.shared.create" | "view.shared.rename" | "view.shared.delete",
  row: Pick<Row, "id" | "list" | "shared_role_id" | "owner_id">,
  details: Record<string, unknown>,
  trx: Executor,
) {
  return audit(
    origin,
    {
      action,
      actor,
      target: { type: "saved_view", id: row.id },
      details: { list: row.list, role: row.shared_role_id, owner: row.owner_id, ...details },
    },
    trx,
  );
}

export async function createView(
  actor: Actor,
  input: z.output<typeof createViewSchema>,
  origin: AuditOrigin,
): Promise<SavedViewItem> {
  if (!mayRead(actor, input.list)) throw new RuleViolation("views.cannotRead");
  const sharedRoleId = input.sharedRoleId || null;
  const grants = await roleGrants();
  if (sharedRoleId) {
    if (!can(actor, SHARE)) throw new RuleViolation("views.cannotShare");
    if (!grants.has(sharedRoleId)) throw new InvalidInput("views.noSuchRole", "sharedRoleId");
  }
  const query = normaliseQuery(input.list, input.query);
  const ts = now();
  const row: Row = {
    id: randomUUID(),
    owner_id: actor.id,
    list: input.list,
    name: input.name,
    query,
    shared_role_id: sharedRoleId,
    created_at: ts,
    updated_at: ts,
  };
  await db()
    .transaction()
    .execute(async (trx) => {
      const count = await trx
        .selectFrom("saved_view")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("owner_id", "=", actor.id)
        .executeTakeFirst();
      if (Number(count?.n ?? 0) >= MAX_VIEWS_PER_PERSON)
        throw new RuleViolation("views.tooMany", { max: MAX_VIEWS_PER_PERSON });
      if (await nameTaken(trx, actor.id, input.list, input.name))
        throw new InvalidInput("views.nameTaken", "name", { name: input.name });
      await trx
        .insertInto("saved_view")
        .values(row)
        .execute()
        .catch((e) => duplicateName(e, input.name));
      if (sharedRoleId) await auditShared(origin, actor, "view.shared.create", row, { name: row.name }, trx);
    });
  return toItem(actor, row, grants);
}

/** Anything else is "not found", so nobody learns of another person's views by guessing ids. */
async function manageableView(actor: Actor, id: string): Promise<Row> {
  const row = await db().selectFrom("saved_view").selectAll().where("id", "=", id).executeTakeFirst();
  const allowed =
    row &&
    mayRead(actor, row.list) &&
    (row.owner_id === actor.id || (row.shared_role_id !== null && can(actor, SHARE)));
  if (!allowed) throw new NotFound("views.notFound");
  return row;
}

export async function renameView(
  actor: Actor,
  input: z.output<typeof renameViewSchema>,
  origin: AuditOrigin,
): Promise<void> {
  const row = await manageableView(actor, input.id);
  if (row.name === input.name) return;
  await db()
    .transaction()
    .execute(async (trx) => {
      if (await nameTaken(trx, row.owner_id, row.list, input.name, row.id))
        throw new InvalidInput("views.nameTaken", "name", { name: input.name });
      await trx
        .updateTable("saved_view")
        .set({ name: input.name, updated_at: now() })
        .where("id", "=", row.id)
        .execute()
        .catch((e) => duplicateName(e, input.name));
      if (row.shared_role_id)
        await auditShared(
          origin,
          actor,
          "view.shared.rename",
          row,
          { name: { before: row.name, after: input.name } },
          trx,
        );
    });
}

export async function deleteView(actor: Actor, id: string, origin: AuditOrigin): Promise<{ name: string }> {
  const row = await manageableView(actor, id);
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx.deleteFrom("saved_view").where("id", "=", row.id).execute();
      if (row.shared_role_id)
        await auditShared(origin, actor, "view.shared.delete", row, { name: row.name }, trx);
    });
  return { name: row.name };
}

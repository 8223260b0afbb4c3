import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { z } from "zod";
import type { Database } from "../../db/schema";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import {
  type LabelTranslations,
  type MaybeTranslated,
  sameTranslations,
  writeLabelTranslations,
} from "./label-translations";
import { assertKnownLanguages } from "./label-translations.server";
import { assertRoleNetworks, setRoleNetworks } from "./networks.server";
import { PERMISSION_KEYS } from "./permissions";
import { invalidateRoles, type RoleGrant, roleGrants, rolesChanged } from "./role-cache.server";
import type { createRoleSchema, patchRoleSchema, saveMatrixSchema, updateRoleSchema } from "./role-schemas";
import { assertMayEditRole, mayEditRole } from "./rules.server";
import { setRoleSessionLimits } from "./session-limits.server";

/** `editable`: the role holds nothing the actor lacks, and is not Super Admin. */
export async function listRoles(actor?: AuditedActor) {
  const grants = await roleGrants();
  const [counts, systemRows] = await Promise.all([
    roleMemberCounts([...grants.values()].map((r) => r.id)),
    db().selectFrom("role").select(["id", "is_system"]).execute(),
  ]);
  const system = new Set(systemRows.filter((r) => r.is_system === 1).map((r) => r.id));
  return [...grants.values()].map((r) => ({
    id: r.id,
    name: r.name,
    label: r.label,
    translations: r.translations,
    description: r.description,
    all: r.all,
    system: system.has(r.id),
    permissions: [...r.permissions].sort(),
    users: counts.get(r.id) ?? 0,
    editable: !r.all && (!actor || mayEditRole(actor, r)),
    maxRequestHours: r.maxRequestHours,
    allowedNetworks: r.allowedNetworks,
  }));
}

/** A role as the roles API answers it (docs/http-contract.md, "Roles API"). */
export function roleForApi(r: RoleGrant) {
  return {
    name: r.name,
    label: r.label,
    description: r.description,
    permissions: r.all ? [...PERMISSION_KEYS] : [...r.permissions].sort(),
    superAdmin: r.all,
    requestable: r.maxRequestHours !== null,
    maxRequestHours: r.maxRequestHours,
    allowedNetworks: r.allowedNetworks,
    sessionIdleMinutes: r.sessionIdleMinutes,
    sessionMaxHours: r.sessionMaxHours,
  };
}

/**
 * A role is requestable exactly when it has a most of hours. Undefined leaves it as it is;
 * `requestable: true` keeps the hours the role has and needs some; hours alone change a
 * requestable role's.
 */
function requestHours(role: RoleGrant, input: z.infer<typeof patchRoleSchema>): number | null | undefined {
  if (input.requestable === false) return null;
  if (input.requestable === undefined && input.maxRequestHours === undefined) return undefined;
  if (input.requestable === undefined && input.maxRequestHours === null) return null;
  const hours = input.maxRequestHours === undefined ? role.maxRequestHours : input.maxRequestHours;
  if (hours === null || (input.requestable === undefined && role.maxRequestHours === null))
    throw new InvalidInput("access.request.hoursNeeded", "maxRequestHours");
  return hours;
}

/** The roles tab's switch: who may ask for the role, for how long (null: nobody). */
export async function setRequestHours(
  actor: AuditedActor,
  input: { roleId: string; hours?: number },
  origin: AuditOrigin,
): Promise<RoleGrant> {
  const role = (await roleGrants()).get(input.roleId);
  if (!role) throw new NotFound("access.roleGone");
  await updateRole(
    actor,
    {
      roleId: role.id,
      label: role.label,
      translations: role.translations,
      description: role.description,
      permissions: [...role.permissions],
      maxRequestHours: input.hours ?? null,
    },
    origin,
  );
  return role;
}

/** `PATCH /api/roles/:name`: the fields left out keep their values; the matrix's rules apply. */
export async function patchRole(
  actor: AuditedActor,
  name: string,
  input: z.infer<typeof patchRoleSchema>,
  origin: AuditOrigin,
) {
  const role = [...(await roleGrants()).values()].find((r) => r.name === name);
  if (!role) throw new NotFound("access.roleGone");
  const { allowedNetworks, sessionIdleMinutes, sessionMaxHours, ...rest } = input;
  const networks = allowedNetworks && { roleId: role.id, networks: allowedNetworks };
  // A limit left out keeps the role's; null lifts it (undefined to setRoleSessionLimits).
  const merged = (given: number | null | undefined, kept: number | null) =>
    (given === undefined ? kept : given) ?? undefined;
  const limits =
    sessionIdleMinutes !== undefined || sessionMaxHours !== undefined
      ? {
          roleId: role.id,
          idleMinutes: merged(sessionIdleMinutes, role.sessionIdleMinutes),
          maxHours: merged(sessionMaxHours, role.sessionMaxHours),
        }
      : undefined;
  // Checked before anything is written, so a refused rule leaves the rest of the change unmade too.
  if (networks) await assertRoleNetworks(actor, networks, origin);
  if (limits) assertMayEditRole(actor, role);
  // Super Admin's permissions are fixed, its network rule and session limits are not: a PATCH of
  // those alone skips the rest.
  if ((!networks && !limits) || Object.keys(rest).length > 0)
    await updateRole(
      actor,
      {
        roleId: role.id,
        label: input.label ?? role.label,
        translations: input.translations ?? role.translations,
        description: input.description ?? role.description,
        permissions: input.permissions ?? [...role.permissions],
        maxRequestHours: requestHours(role, input),
      },
      origin,
    );
  if (networks) await setRoleNetworks(actor, networks, origin);
  if (limits) await setRoleSessionLimits(actor, limits, origin);
  const after = (await roleGrants()).get(role.id);
  if (!after) throw new NotFound("access.roleGone");
  return roleForApi(after);
}

/** From the maintained counters: one primary-key read per role, not every link (decision 023). */
export async function roleMemberCounts(roleIds: string[]): Promise<Map<string, number>> {
  if (!roleIds.length) return new Map();
  const rows = await db()
    .selectFrom("stat_count")
    .select(["scope", "n"])
    .where("scope", "in", roleIds)
    .where("day", "=", "")
    .where("name", "=", "roles.members")
    .execute();
  return new Map(rows.map((r) => [r.scope, Number(r.n)]));
}

function assertHolds(actor: AuditedActor, permissions: string[]) {
  if (actor.isSuperAdmin) return;
  const missing = permissions.filter((p) => !actor.permissions.has(p));
  if (missing.length) throw new RuleViolation("access.grantUnheld", { permissions: missing.join(", ") });
}

async function setLinks(roleId: string, keys: string[], trx: Kysely<Database>) {
  await trx.deleteFrom("role_permission").where("role_id", "=", roleId).execute();
  if (!keys.length) return;
  const perms = await trx.selectFrom("permission").select(["id", "key"]).where("key", "in", keys).execute();
  if (perms.length)
    await trx
      .insertInto("role_permission")
      .values(perms.map((p) => ({ role_id: roleId, permission_id: p.id })))
      .execute();
}

export async function createRole(
  actor: AuditedActor,
  input: Described<MaybeTranslated<z.infer<typeof createRoleSchema>>>,
  origin: AuditOrigin,
) {
  assertHolds(actor, input.permissions);
  const translations = input.translations ?? {};
  assertKnownLanguages(translations, "translations");
  const exists = await db().selectFrom("role").select("id").where("name", "=", input.name).executeTakeFirst();
  if (exists) throw new RuleViolation("access.roleNameTaken", { name: input.name });
  const id = randomUUID();
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("role")
        .values({
          id,
          name: input.name,
          label: input.label,
          label_translations: writeLabelTranslations(translations),
          description: input.description ?? "",
          created_at: ts,
          updated_at: ts,
        })
        .execute();
      await setLinks(id, input.permissions, trx);
      await audit(
        origin,
        {
          action: "role.create",
          actor,
          target: { type: "role", id },
          details: { after: { ...input, translations } },
        },
        trx,
      );
    });
  await invalidateRoles();
  return id;
}

/** The description may be left out (code and tests that predate it): it stays as it is. */
type Described<T extends { description: string }> = Omit<T, "description"> & { description?: string };
type RoleEdit = Described<MaybeTranslated<z.infer<typeof updateRoleSchema>>> & {
  /** Undefined: unchanged; null: nobody may ask for it. */
  maxRequestHours?: number | null;
};
type RoleChange = {
  role: RoleGrant;
  label: string;
  translations: LabelTranslations;
  description: string;
  maxRequestHours: number | null;
  before: string[];
  after: string[];
};

function checkedChange(
  actor: AuditedActor,
  role: RoleGrant | undefined,
  input: RoleEdit,
  field = "translations",
): RoleChange {
  if (!role) throw new NotFound("access.roleGone");
  if (role.all) throw new RuleViolation("access.superAdminFixed");
  assertMayEditRole(actor, role);
  const translations = input.translations ?? {};
  assertKnownLanguages(translations, field);
  const before = [...role.permissions].sort();
  const after = [...new Set(input.permissions)].sort();
  assertHolds(actor, [
    ...after.filter((p) => !before.includes(p)),
    ...before.filter((p) => !after.includes(p)),
  ]);
  return {
    role,
    label: input.label,
    translations,
    description: input.description ?? role.description,
    maxRequestHours: input.maxRequestHours === undefined ? role.maxRequestHours : input.maxRequestHours,
    before,
    after,
  };
}

async function applyChange(
  change: RoleChange,
  actor: AuditedActor,
  origin: AuditOrigin,
  trx: Kysely<Database>,
) {
  const { role, label, translations, description, maxRequestHours, before, after } = change;
  await trx
    .updateTable("role")
    .set({
      label,
      label_translations: writeLabelTranslations(translations),
      description,
      requestable: maxRequestHours === null ? 0 : 1,
      max_request_hours: maxRequestHours,
      updated_at: now(),
    })
    .where("id", "=", role.id)
    .execute();
  await setLinks(role.id, after, trx);
  await audit(
    origin,
    {
      action: "role.permissions.update",
      actor,
      target: { type: "role", id: role.id },
      details: {
        before: {
          label: role.label,
          translations: role.translations,
          description: role.description,
          maxRequestHours: role.maxRequestHours,
          permissions: before,
        },
        after: { label, translations, description, maxRequestHours, permissions: after },
      },
    },
    trx,
  );
}

export async function updateRole(actor: AuditedActor, input: RoleEdit, origin: AuditOrigin) {
  const change = checkedChange(actor, (await roleGrants()).get(input.roleId), input);
  await db()
    .transaction()
    .execute((trx) => applyChange(change, actor, origin, trx));
  // A "View as" may no longer hold: its stream reconnects to find out.
  await rolesChanged();
}

/** All roles are checked before anything is written, so one refusal changes nothing; unchanged roles are skipped. */
export async function saveRoleMatrix(
  actor: AuditedActor,
  input: z.infer<typeof saveMatrixSchema>,
  origin: AuditOrigin,
) {
  const grants = await roleGrants();
  const changes: RoleChange[] = [];
  for (const [i, edit] of input.roles.entries()) {
    const role = grants.get(edit.roleId);
    if (role && !role.all && unchanged(role, edit)) continue;
    changes.push(checkedChange(actor, role, edit, `roles[${i}].translations`));
  }
  if (!changes.length) return 0;
  await db()
    .transaction()
    .execute(async (trx) => {
      for (const change of changes) await applyChange(change, actor, origin, trx);
    });
  // A "View as" may no longer hold: its stream reconnects to find out.
  await rolesChanged();
  return changes.length;
}

function unchanged(role: RoleGrant, edit: RoleEdit) {
  const after = new Set(edit.permissions);
  return (
    role.label === edit.label &&
    role.description === (edit.description ?? role.description) &&
    sameTranslations(role.translations, edit.translations) &&
    after.size === role.permissions.size &&
    [...after].every((p) => role.permissions.has(p))
  );
}

/** Nobody deletes a role they hold themselves, as nobody removes their own roles. */
export async function deleteRole(actor: AuditedActor, input: { roleId: string }, origin: AuditOrigin) {
  const { roleId } = input;
  const role = await db().selectFrom("role").selectAll().where("id", "=", roleId).executeTakeFirst();
  if (!role) throw new NotFound("access.roleGone");
  if (role.is_system) throw new RuleViolation("access.roleBuiltIn", { role: role.label });
  const grant = (await roleGrants()).get(roleId);
  if (grant) assertMayEditRole(actor, grant);
  await db()
    .transaction()
    .execute(async (trx) => {
      const holders = await trx
        .selectFrom("user_role")
        .select("user_id")
        .where("role_id", "=", roleId)
        .execute();
      const members = holders.map((h) => h.user_id);
      if (members.includes(actor.id)) throw new RuleViolation("access.roleHeldBySelf", { role: role.label });
      await trx.deleteFrom("user_role").where("role_id", "=", roleId).execute();
      await trx.deleteFrom("role").where("id", "=", roleId).execute();
      await audit(
        origin,
        {
          action: "role.delete",
          actor,
          target: { type: "role", id: roleId },
          details: {
            before: {
              name: role.name,
              label: role.label,
              translations: grant?.translations ?? {},
              permissions: grant ? [...grant.permissions].sort() : [],
            },
            removedFrom: members,
          },
        },
        trx,
      );
    });
  // A "View as" may no longer hold: its stream reconnects to find out.
  await rolesChanged();
}

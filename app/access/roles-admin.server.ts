import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "../../db/schema";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import { PERMISSION_KEYS } from "./permissions";
import { invalidateRoles, roleGrants } from "./role-cache.server";
import { assertMayEditRole } from "./rules.server";

export const roleNameSchema = z
  .string()
  .trim()
  .min(2, "Use at least 2 characters.")
  .max(40)
  .regex(/^[a-z][a-z0-9_]*$/, "Lowercase letters, digits and underscores, starting with a letter.");

export const createRoleSchema = z.object({
  name: roleNameSchema,
  label: z.string().trim().min(1, "Enter a label.").max(80),
  permissions: z.array(z.enum(PERMISSION_KEYS as [string, ...string[]])).max(100),
});

export const updateRoleSchema = z.object({
  roleId: z.string().uuid(),
  label: z.string().trim().min(1, "Enter a label.").max(80),
  permissions: z.array(z.enum(PERMISSION_KEYS as [string, ...string[]])).max(100),
});

/** Roles with how many users hold each, for the access page. */
export async function listRoles() {
  const [grants, counts] = await Promise.all([
    roleGrants(),
    db()
      .selectFrom("user_role")
      .select(["role_id", (eb) => eb.fn.countAll<number>().as("count")])
      .groupBy("role_id")
      .execute(),
  ]);
  const systemRows = await db().selectFrom("role").select(["id", "is_system"]).execute();
  const system = new Set(systemRows.filter((r) => r.is_system === 1).map((r) => r.id));
  return [...grants.values()].map((r) => ({
    id: r.id,
    name: r.name,
    label: r.label,
    all: r.all,
    system: system.has(r.id),
    permissions: [...r.permissions].sort(),
    users: Number(counts.find((c) => c.role_id === r.id)?.count ?? 0),
  }));
}

/** Nobody hands a role a permission they do not hold themselves. */
function assertHolds(actor: SessionUser, permissions: string[]) {
  if (actor.isSuperAdmin) return;
  const missing = permissions.filter((p) => !actor.permissions.has(p));
  if (missing.length)
    throw new RuleViolation(`You cannot grant permissions you do not hold: ${missing.join(", ")}.`);
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
  actor: SessionUser,
  input: z.infer<typeof createRoleSchema>,
  origin: AuditOrigin,
) {
  assertHolds(actor, input.permissions);
  const exists = await db().selectFrom("role").select("id").where("name", "=", input.name).executeTakeFirst();
  if (exists) throw new RuleViolation(`A role named "${input.name}" already exists.`);
  const id = randomUUID();
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("role")
        .values({ id, name: input.name, label: input.label, created_at: ts, updated_at: ts })
        .execute();
      await setLinks(id, input.permissions, trx);
      await audit(
        origin,
        { action: "role.create", actor, target: { type: "role", id }, details: { after: input } },
        trx,
      );
    });
  await invalidateRoles();
  return id;
}

export async function updateRole(
  actor: SessionUser,
  input: z.infer<typeof updateRoleSchema>,
  origin: AuditOrigin,
) {
  const role = (await roleGrants()).get(input.roleId);
  if (!role) throw new NotFound("That role no longer exists.");
  if (role.all) throw new RuleViolation("Super Admin holds every permission and cannot be edited.");
  assertMayEditRole(actor, role);
  const before = [...role.permissions].sort();
  const after = [...new Set(input.permissions)].sort();
  // Adding needs the permission; so does taking one away from others.
  assertHolds(actor, [
    ...after.filter((p) => !before.includes(p)),
    ...before.filter((p) => !after.includes(p)),
  ]);
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("role")
        .set({ label: input.label, updated_at: now() })
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
            before: { label: role.label, permissions: before },
            after: { label: input.label, permissions: after },
          },
        },
        trx,
      );
    });
  await invalidateRoles();
}

export async function deleteRole(actor: SessionUser, input: { roleId: string }, origin: AuditOrigin) {
  const { roleId } = input;
  const role = await db().selectFrom("role").selectAll().where("id", "=", roleId).executeTakeFirst();
  if (!role) throw new NotFound("That role no longer exists.");
  if (role.is_system) throw new RuleViolation(`"${role.label}" is a built-in role and cannot be deleted.`);
  const grant = (await roleGrants()).get(roleId);
  if (grant) assertMayEditRole(actor, grant);
  await db()
    .transaction()
    .execute(async (trx) => {
      const { count } = await trx
        .selectFrom("user_role")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("role_id", "=", roleId)
        .executeTakeFirstOrThrow();
      if (Number(count) > 0)
        throw new RuleViolation(`"${role.label}" is held by ${count} user(s); remove it from them first.`);
      await trx.deleteFrom("role").where("id", "=", roleId).execute();
      await audit(
        origin,
        {
          action: "role.delete",
          actor,
          target: { type: "role", id: roleId },
          details: { before: { name: role.name, label: role.label } },
        },
        trx,
      );
    });
  await invalidateRoles();
}

import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { NotFound } from "../domain-errors";
import { type RoleGrant, roleGrants, rolesChanged } from "./role-cache.server";
import { assertMayEditRole } from "./rules.server";

// A role's own session limits (decision 051), stricter than the global ones for whoever holds it:
// read by app/auth/session-policy.server.ts on every request, from the cached roles.

export async function setRoleSessionLimits(
  actor: AuditedActor,
  input: { roleId: string; idleMinutes?: number; maxHours?: number },
  origin: AuditOrigin,
): Promise<RoleGrant> {
  const role = (await roleGrants()).get(input.roleId);
  if (!role) throw new NotFound("access.roleGone");
  assertMayEditRole(actor, role);
  const after = { idleMinutes: input.idleMinutes ?? null, maxHours: input.maxHours ?? null };
  const before = { idleMinutes: role.sessionIdleMinutes, maxHours: role.sessionMaxHours };
  if (before.idleMinutes === after.idleMinutes && before.maxHours === after.maxHours) return role;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("role")
        .set({
          session_idle_minutes: after.idleMinutes,
          session_max_hours: after.maxHours,
          updated_at: now(),
        })
        .where("id", "=", role.id)
        .execute();
      await audit(
        origin,
        {
          action: "role.sessions.update",
          actor,
          target: { type: "role", id: role.id },
          details: { role: role.name, before, after },
        },
        trx,
      );
    });
  await rolesChanged();
  return (await roleGrants()).get(role.id) ?? role;
}

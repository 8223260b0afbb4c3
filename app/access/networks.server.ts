import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import { addressInCidrs, toCidrs } from "../http/cidr";
import { clientIp } from "../http/request-info.server";
import type { Grant } from "./decide";
import { grantsOfUsers } from "./grant-rows.server";
import { type RoleGrant, roleGrants, rolesChanged } from "./role-cache.server";
import { activeSuperAdminIds, assertMayEditRole } from "./rules.server";

// Network rules per role (decision 050): someone holding a role that has allowed networks signs in
// and uses a session only from an address in them. Each such role held must allow the address; a
// grant in a team counts as much as one over everyone, an expired one not at all.

/** How far back the preview reads the audit log's addresses. */
const PREVIEW_DAYS = 30;
const PREVIEW_PEOPLE = 50;
const PREVIEW_ROWS = 5_000;

type Networked = Pick<RoleGrant, "id" | "allowedNetworks" | "cidrs">;

function live(grant: Grant, at: number): boolean {
  return grant.expiresAt === null || Date.parse(grant.expiresAt) > at;
}

function refuses(role: Networked, ip: string): boolean {
  return role.allowedNetworks.length > 0 && !addressInCidrs(ip, role.cidrs);
}

/**
 * The roles among `grants` whose rule leaves `ip` out: none means the address may be used. From
 * the cached roles, so a changed rule applies to a session's very next request, with no query.
 */
export async function rolesRefusing(
  grants: readonly Grant[],
  ip: string,
  override?: Networked,
): Promise<RoleGrant[]> {
  const roles = await roleGrants();
  const at = Date.now();
  const out = new Map<string, RoleGrant>();
  for (const grant of grants) {
    if (!live(grant, at)) continue;
    const role = roles.get(grant.role.id);
    if (!role) continue;
    if (refuses(override?.id === role.id ? override : role, ip)) out.set(role.id, role);
  }
  return [...out.values()];
}

export async function rolesRefusingUser(userId: string, ip: string): Promise<RoleGrant[]> {
  return rolesRefusing((await grantsOfUsers([userId])).get(userId) ?? [], ip);
}

/**
 * Refused when the rule would shut its author out where they stand, or leave no active super admin
 * who may work from that address (the way back in after a mistaken rule).
 */
async function assertNoLockout(actor: AuditedActor, proposed: Networked, ip: string) {
  const admins = await activeSuperAdminIds();
  const grants = await grantsOfUsers([...new Set([actor.id, ...admins])]);
  if ((await rolesRefusing(grants.get(actor.id) ?? [], ip, proposed)).length > 0)
    throw new RuleViolation("access.networks.locksYouOut", { ip });
  if (admins.length === 0) return;
  for (const id of admins) if ((await rolesRefusing(grants.get(id) ?? [], ip, proposed)).length === 0) return;
  throw new RuleViolation("access.networks.lastSuperAdmin", { ip });
}

/** Everything setRoleNetworks checks, writing nothing: a PATCH changing more checks it all first. */
export async function assertRoleNetworks(
  actor: AuditedActor,
  input: { roleId: string; networks: string[] },
  origin: AuditOrigin,
): Promise<RoleGrant> {
  const role = (await roleGrants()).get(input.roleId);
  if (!role) throw new NotFound("access.roleGone");
  // Super Admin's rule too, by a super admin only (holding all of a role is what editing it asks).
  assertMayEditRole(actor, role);
  const proposed = { id: role.id, allowedNetworks: input.networks, cidrs: toCidrs(input.networks) };
  await assertNoLockout(actor, proposed, clientIp(origin.context));
  return role;
}

export async function setRoleNetworks(
  actor: AuditedActor,
  input: { roleId: string; networks: string[] },
  origin: AuditOrigin,
): Promise<RoleGrant> {
  const role = await assertRoleNetworks(actor, input, origin);
  if (JSON.stringify(role.allowedNetworks) === JSON.stringify(input.networks)) return role;
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("role")
        .set({ allowed_networks: JSON.stringify(input.networks), updated_at: now() })
        .where("id", "=", role.id)
        .execute();
      await audit(
        origin,
        {
          action: "role.networks.update",
          actor,
          target: { type: "role", id: role.id },
          details: { role: role.name, before: role.allowedNetworks, after: input.networks },
        },
        trx,
      );
    });
  await rolesChanged();
  return (await roleGrants()).get(role.id) ?? role;
}

export type RefusedPerson = { id: string; name: string; email: string; addresses: string[]; lastAt: string };

/**
 * Who, of the role's holders, acted in the last 30 days from an address the rule leaves out (from
 * the audit log's addresses): what the rule would have refused. Bounded reads, for one role.
 */
export async function networkRulePreview(
  roleId: string,
  networks: string[],
): Promise<{ people: RefusedPerson[]; total: number; days: number }> {
  const cidrs = toCidrs(networks);
  const since = new Date(Date.now() - PREVIEW_DAYS * 86_400_000).toISOString();
  if (networks.length === 0) return { people: [], total: 0, days: PREVIEW_DAYS };
  const rows = await db()
    .selectFrom("audit_log")
    .innerJoin("user", "user.id", "audit_log.actor_id")
    .select((eb) => [
      "user.id",
      "user.name",
      "user.email",
      "audit_log.ip",
      eb.fn.max("audit_log.created_at").as("last_at"),
    ])
    .where("audit_log.created_at", ">=", since)
    .where("audit_log.ip", "is not", null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("user_role")
          .select("user_role.user_id")
          .whereRef("user_role.user_id", "=", "audit_log.actor_id")
          .where("user_role.role_id", "=", roleId)
          .where((w) => w.or([w("user_role.expires_at", "is", null), w("user_role.expires_at", ">", now())])),
      ),
    )
    .groupBy(["user.id", "user.name", "user.email", "audit_log.ip"])
    .limit(PREVIEW_ROWS)
    .execute();
  const people = new Map<string, RefusedPerson>();
  for (const r of rows) {
    if (!r.ip || addressInCidrs(r.ip, cidrs)) continue;
    const person = people.get(r.id) ?? { id: r.id, name: r.name, email: r.email, addresses: [], lastAt: "" };
    person.addresses.push(r.ip);
    if (String(r.last_at) > person.lastAt) person.lastAt = String(r.last_at);
    people.set(r.id, person);
  }
  const all = [...people.values()].sort((a, b) => b.lastAt.localeCompare(a.lastAt));
  return { people: all.slice(0, PREVIEW_PEOPLE), total: all.length, days: PREVIEW_DAYS };
}

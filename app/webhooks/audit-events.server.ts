import type { ChainedFields } from "../audit/chain";
import { type Executor, now } from "../db.server";
import { enabledEndpoints, enqueueEvents, type WebhookEvent } from "./enqueue.server";
import type { WebhookEventType } from "./event-types";

// Every change writes an audit row in its transaction, so the audit row is where webhook events are born.

type AuditRow = ChainedFields & { prev_hash: string; hash: string; hash_version: number };

const BY_ACTION: Record<string, WebhookEventType> = {
  "user.create": "user.created",
  "auth.register": "user.created",
  "sso.account.created": "user.created",
  "auth.invite.accepted": "user.created",
  "user.update": "user.updated",
  "user.disable": "user.disabled",
  "user.enable": "user.enabled",
  "user.disable.undone": "user.enabled",
  "user.role_removal.undone": "user.updated",
  "user.role.grant": "user.role_granted",
  "user.role.revoke": "user.role_revoked",
  // Removed by the daily cleanup: the details say it ended (expiresAt) rather than who revoked it.
  "role.expired": "user.role_revoked",
  "user.delete": "user.deleted",
  "role.create": "role.created",
  "role.update": "role.updated",
  "role.permissions.update": "role.updated",
  "role.delete": "role.deleted",
  "access_request.created": "access_request.created",
  "access_request.approved": "access_request.approved",
  "access_request.denied": "access_request.denied",
  "access_request.expired": "access_request.expired",
  "access_review.created": "access_review.created",
  "access_review.decided": "access_review.decided",
  "access_review.closed": "access_review.closed",
  "team.create": "team.created",
  "team.update": "team.updated",
  "team.delete": "team.deleted",
  "team.member.add": "team.member_added",
  "team.member.remove": "team.member_removed",
  "team.member.remove.undone": "team.member_added",
  "auth.login.succeeded": "session.signed_in",
  "auth.login.failed": "session.sign_in_failed",
  "settings.update": "settings.updated",
  "settings.reset": "settings.updated",
  "email_template.update": "email_template.updated",
  "email_template.reset": "email_template.updated",
};

function parse(details: string | null): Record<string, unknown> {
  try {
    return details ? (JSON.parse(details) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Never the password hash or any secret. */
async function userData(trx: Executor, id: string | null) {
  if (!id) return null;
  const user = await trx
    .selectFrom("user")
    .select(["id", "email", "name", "status", "email_verified", "created_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!user) return null;
  const roles = await trx
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user_role.user_id", "=", id)
    // Global and live, as access's liveGlobal (infrastructure imports no domain): the roles over everyone.
    .where("user_role.team_id", "is", null)
    .where((eb) => eb.or([eb("user_role.expires_at", "is", null), eb("user_role.expires_at", ">", now())]))
    .orderBy("role.name")
    .execute();
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    status: user.status,
    emailVerified: Boolean(user.email_verified),
    roles: roles.map((r) => r.name),
    createdAt: user.created_at,
  };
}

async function resourceData(trx: Executor, type: string | null, id: string | null) {
  if (type === "user") return userData(trx, id);
  if (type === "team" && id)
    return (
      (await trx.selectFrom("team").select(["id", "name"]).where("id", "=", id).executeTakeFirst()) ?? null
    );
  if (type === "role" && id)
    return (
      (await trx
        .selectFrom("role")
        .select(["id", "name", "label"])
        .where("id", "=", id)
        .executeTakeFirst()) ?? null
    );
  return null;
}

function sameRoles(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (Array.isArray(v) ? [...v].map(String).sort().join(",") : "");
  return norm(a) === norm(b);
}

/** Nothing is read when no endpoint is enabled. */
export async function enqueueAuditEvents(trx: Executor, row: AuditRow) {
  const endpoints = await enabledEndpoints(trx);
  if (endpoints.length === 0) return;
  const details = parse(row.details);
  const actor = row.actor_id || row.actor_email ? { id: row.actor_id, email: row.actor_email } : null;
  const events: WebhookEvent[] = [
    {
      type: "audit.entry",
      // Each row on its own, so one refused row does not hold the stream back (a SIEM orders by `seq`).
      resource: `audit:${row.seq}`,
      data: { ...row, details },
    },
  ];
  const type = BY_ACTION[row.action];
  if (type) {
    // Without a target each event stands alone, so one refused message holds back no other.
    const resource =
      row.target_type && row.action !== "auth.login.failed"
        ? `${row.target_type}:${row.target_id ?? ""}`
        : `audit:${row.seq}`;
    const current = await resourceData(trx, row.target_type, row.target_id);
    const base = { actor, at: row.created_at, requestId: row.request_id };
    const data: Record<string, unknown> = type.startsWith("session.")
      ? {
          ...base,
          user: current,
          email: details.email ?? row.actor_email,
          ip: row.ip,
          userAgent: row.user_agent,
        }
      : type === "settings.updated"
        ? { ...base, changes: details }
        : { ...base, [row.target_type ?? "resource"]: current ?? { id: row.target_id }, details };
    events.push({ type, resource, data });
    if (row.action === "user.update" || row.action === "user.role_removal.undone") {
      const before = (details.before ?? {}) as { roles?: unknown };
      const after = (details.after ?? {}) as { roles?: unknown };
      if (!sameRoles(before.roles, after.roles))
        events.push({
          type: "user.roles_changed",
          resource,
          data: { ...base, user: current, before: before.roles ?? [], after: after.roles ?? [] },
        });
    }
  }
  await enqueueEvents(trx, events, endpoints);
}

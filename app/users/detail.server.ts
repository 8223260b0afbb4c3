import { type AccessSubject, can } from "../access/check";
import { sessionHandle } from "../auth/session.server";
import { db } from "../db.server";

/**
 * What the user page shows beside the account: teams, sessions, recent audit entries and tasks.
 * Sessions (devices, IPs) and the audit trail are audit-log material: `log.read` sees them, an
 * account sees its own sessions; anyone else gets null, so user.read alone reveals no IPs.
 */
export async function userActivity(viewer: AccessSubject & { id: string }, userId: string) {
  const readsLogs = can(viewer, "log.read");
  const showSessions = readsLogs || viewer.id === userId;
  const [teams, sessions, audit, tasks] = await Promise.all([
    db()
      .selectFrom("team_member")
      .innerJoin("team", "team.id", "team_member.team_id")
      .select(["team.id", "team.name", "team_member.team_role"])
      .where("team_member.user_id", "=", userId)
      .orderBy("team.name")
      .execute(),
    showSessions
      ? db()
          .selectFrom("session")
          .select(["id", "ip", "user_agent", "created_at", "last_seen_at", "expires_at"])
          .where("user_id", "=", userId)
          .orderBy("last_seen_at", "desc")
          .execute()
      : null,
    readsLogs ? auditOf(userId) : null,
    db()
      .selectFrom("task")
      .select(["id", "type", "status", "created_at", "completed_at"])
      .where("user_id", "=", userId)
      .orderBy("created_at", "desc")
      .limit(10)
      .execute(),
  ]);
  return {
    teams,
    sessions: sessions?.map(({ id, ...rest }) => ({ ...rest, handle: sessionHandle(id) })) ?? null,
    audit,
    tasks,
  };
}

function auditOf(userId: string) {
  return db()
    .selectFrom("audit_log")
    .select(["id", "action", "actor_email", "created_at"])
    .where((eb) =>
      eb.or([
        eb.and([eb("target_type", "=", "user"), eb("target_id", "=", userId)]),
        eb("actor_id", "=", userId),
      ]),
    )
    .orderBy("created_at", "desc")
    .limit(20)
    .execute();
}

import type { TFunction } from "i18next";
import { mayOnUser, type Subject } from "../access/reach.server";
import { sessionHandle } from "../auth/session.server";
import { db } from "../db.server";
import { english } from "../http/device-words";
import { describeUserAgent } from "../http/user-agent";

/** Sessions and the audit trail are `log.read` material (an account sees its own sessions): null otherwise, so user.read alone reveals no IPs. */
export async function userActivity(viewer: Subject & { id: string }, userId: string, t: TFunction = english) {
  // A team's log reader reads its members' trails (decision 044).
  const readsLogs = await mayOnUser(viewer, "log.read", userId);
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
      .orderBy("id", "desc")
      .limit(10)
      .execute(),
  ]);
  return {
    teams,
    sessions:
      sessions?.map(({ id, user_agent, ...rest }) => ({
        ...rest,
        device: describeUserAgent(user_agent, t).device,
        handle: sessionHandle(id),
      })) ?? null,
    audit,
    tasks,
  };
}

/** Two index ranges merged: an OR would read and sort every entry of a busy account. UNION: an entry about oneself is in both. */
function auditOf(userId: string) {
  const newest = (query: ReturnType<typeof auditRows>) =>
    db()
      .selectFrom(query.orderBy("created_at", "desc").orderBy("id", "desc").limit(20).as("part"))
      .selectAll();
  const about = newest(auditRows().where("target_type", "=", "user").where("target_id", "=", userId));
  const by = newest(auditRows().where("actor_id", "=", userId));
  return db()
    .selectFrom(about.union(by).as("entry"))
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(20)
    .execute();
}

const auditRows = () =>
  db().selectFrom("audit_log").select(["id", "action", "actor_email", "impersonator_email", "created_at"]);

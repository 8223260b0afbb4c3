import { can } from "../access/check";
import { roleGrants } from "../access/role-cache.server";
import { actionLabel } from "../audit/actions";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { readCounters, SYSTEM } from "./counters.server";

const DAYS = 14;

let daysFor: { today: string; n: number; days: string[] } | undefined;

/** The last `n` days (UTC, oldest first), worked out once a day rather than on every overview. */
function lastDays(n: number): string[] {
  const today = new Date().toISOString().slice(0, 10);
  if (daysFor?.today !== today || daysFor.n !== n) {
    const start = Date.parse(today);
    const days = Array.from({ length: n }, (_, i) =>
      new Date(start - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10),
    );
    daysFor = { today, n, days };
  }
  return daysFor.days;
}

/** The newest audit rows: a backward walk of the log's created_at index, eight rows at any size. */
export function recentActivityQuery() {
  return db()
    .selectFrom("audit_log")
    .select(["id", "action", "actor_email", "created_at"])
    .orderBy("created_at", "desc")
    .limit(8);
}

/** The overview cards, each only when the viewer may see what it counts; all read from counters. */
export async function overviewFor(user: SessionUser) {
  const days = lastDays(DAYS);
  const week = days.slice(-7);

  const [system, own, recent, grants] = await Promise.all([
    readCounters(SYSTEM, days[0]!),
    user.isSuperAdmin ? null : readCounters(user.id, days[0]!),
    can(user, "log.read") ? recentActivityQuery().execute() : null,
    roleGrants(),
  ]);
  const tasks = own ?? system;
  const byName = new Map([...grants.values()].map((g) => [g.name, g]));

  return {
    users: can(user, "user.read")
      ? {
          total: system.total("users.total"),
          verified: system.total("users.verified"),
          disabled: system.total("users.disabled"),
          // The last 7 UTC days, today included (docs/decisions/010-maintained-aggregates.md).
          newThisWeek: system.perDay("users.created", week).reduce((a, b) => a + b, 0),
        }
      : null,
    teams: can(user, "team.read") ? { total: system.total("teams.total") } : null,
    tasks: tasks.group("tasks.status."),
    mail: can(user, "settings.manage") ? system.group("mail.status.") : null,
    chart: {
      days,
      signIns: can(user, "log.read") ? system.perDay("signins.day", days) : null,
      tasks: tasks.perDay("tasks.created", days),
    },
    recent:
      recent?.map((r) => ({
        id: r.id,
        action: actionLabel(r.action),
        /** The reader's language says it (auditActionText); `action` stays the English label. */
        actionKey: r.action,
        actor: r.actor_email,
        created_at: r.created_at,
      })) ?? null,
    /** The viewer's roles: the page says each in its language (roleLabel), never the key. */
    roles: user.roles.map((name) => ({
      name,
      label: byName.get(name)?.label ?? name,
      translations: byName.get(name)?.translations ?? {},
    })),
  };
}

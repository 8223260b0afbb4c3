import { sql } from "kysely";
import { can } from "../access/check";
import { roleGrants } from "../access/role-cache.server";
import { actionLabel } from "../audit/actions";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";

const DAYS = 14;

function lastDays(n: number): string[] {
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  return Array.from({ length: n }, (_, i) =>
    new Date(today - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

type Counted = { day: string; count: number | string | bigint };

function byDay(days: string[], rows: Counted[]) {
  const map = new Map(rows.map((r) => [r.day, Number(r.count)]));
  return days.map((d) => map.get(d) ?? 0);
}

/** The overview cards, each only when the viewer may see what it counts. */
export async function overviewFor(user: SessionUser) {
  const days = lastDays(DAYS);
  const since = `${days[0]}T00:00:00.000Z`;
  const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString();
  // The cast makes this portable: PostgreSQL stores timestamptz (printed in the session's UTC).
  const day = sql<string>`substr(cast(created_at as text), 1, 10)`;

  const ownTasks = (q = db().selectFrom("task")) =>
    user.isSuperAdmin ? q : q.where("user_id", "=", user.id);

  const [users, teams, tasks, mail, signIns, tasksPerDay, recent, grants] = await Promise.all([
    can(user, "user.read")
      ? db()
          .selectFrom("user")
          .select((eb) => [
            eb.fn.countAll<number>().as("total"),
            eb.fn.sum<number>(eb.case().when("email_verified", "=", 1).then(1).else(0).end()).as("verified"),
            eb.fn.sum<number>(eb.case().when("status", "=", "disabled").then(1).else(0).end()).as("disabled"),
            eb.fn
              .sum<number>(eb.case().when("created_at", ">=", weekAgo).then(1).else(0).end())
              .as("newThisWeek"),
          ])
          .executeTakeFirstOrThrow()
      : null,
    can(user, "team.read")
      ? db()
          .selectFrom("team")
          .select((eb) => eb.fn.countAll<number>().as("total"))
          .executeTakeFirstOrThrow()
      : null,
    ownTasks()
      .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
      .groupBy("status")
      .execute(),
    can(user, "settings.manage")
      ? db()
          .selectFrom("mail_log")
          .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
          .groupBy("status")
          .execute()
      : null,
    can(user, "log.read")
      ? db()
          .selectFrom("audit_log")
          .select([day.as("day"), (eb) => eb.fn.countAll<number>().as("count")])
          .where("action", "=", "auth.login.succeeded")
          .where("created_at", ">=", since)
          .groupBy(day)
          .execute()
      : null,
    ownTasks()
      .select([day.as("day"), (eb) => eb.fn.countAll<number>().as("count")])
      .where("created_at", ">=", since)
      .groupBy(day)
      .execute(),
    can(user, "log.read")
      ? db()
          .selectFrom("audit_log")
          .select(["id", "action", "actor_email", "created_at"])
          .orderBy("created_at", "desc")
          .limit(8)
          .execute()
      : null,
    roleGrants(),
  ]);
  const labelOf = new Map([...grants.values()].map((g) => [g.name, g.label]));

  const num = (v: unknown) => Number(v ?? 0);
  return {
    users: users && {
      total: num(users.total),
      verified: num(users.verified),
      disabled: num(users.disabled),
      newThisWeek: num(users.newThisWeek),
    },
    teams: teams && { total: num(teams.total) },
    tasks: Object.fromEntries(tasks.map((t) => [t.status, num(t.count)])) as Record<string, number>,
    mail: mail && (Object.fromEntries(mail.map((m) => [m.status, num(m.count)])) as Record<string, number>),
    chart: { days, signIns: signIns ? byDay(days, signIns) : null, tasks: byDay(days, tasksPerDay) },
    recent:
      recent?.map((r) => ({
        id: r.id,
        action: actionLabel(r.action),
        actor: r.actor_email,
        created_at: r.created_at,
      })) ?? null,
    /** The viewer's roles by their names for people ("Super Admin"), never the keys. */
    roles: user.roles.map((name) => labelOf.get(name) ?? name),
    /**
     * The report's demonstration controls (a chosen duration, a simulated failure) are for super
     * admins trying the system out; everyone else gets the plain "Generate report".
     */
    taskDemoControls: user.isSuperAdmin,
  };
}

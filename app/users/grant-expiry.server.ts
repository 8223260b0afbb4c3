import { randomUUID } from "node:crypto";
import { type RoleGrant, roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import { audit } from "../audit/audit.server";
import { settingsUrl } from "../auth/links.server";
import { db, type Executor } from "../db.server";
import { tFor } from "../i18n/i18n.server";
import { intlLocale } from "../i18n/options";
import { sendNotificationEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { type NoticeRow, publishNotices, storeNotices } from "../notifications/notices.server";

// A time-bound grant gives nothing from its `expires_at` on, read at every check
// (app/access/grant-rows.server.ts). These jobs only tidy and tell: the daily cleanup removes
// ended grants with an audit row each, and the hourly one tells each holder once, a day ahead.

const origin = {
  request: new Request("http://internal/grant-expiry", { headers: { "User-Agent": "grant-expiry" } }),
};

const DAY_MS = 86_400_000;

/**
 * Removes the grants that have ended and audits each as `role.expired`. The delete returns each
 * row to the one instance that removed it, so two cleanups at once audit a grant once.
 */
export async function expireGrants(at = new Date()): Promise<number> {
  const roles = await roleGrants();
  return db()
    .transaction()
    .execute(async (trx) => {
      const ended = await trx
        .deleteFrom("user_role")
        .where("expires_at", "<=", at.toISOString())
        .returning(["id", "user_id", "role_id", "team_id", "expires_at", "granted_by"])
        .execute();
      const teamIds = [...new Set(ended.flatMap((g) => (g.team_id ? [g.team_id] : [])))];
      const teams = await teamNames(trx, teamIds);
      for (const grant of ended)
        await audit(
          origin,
          {
            action: "role.expired",
            target: { type: "user", id: grant.user_id },
            // The shape of user.role.revoke's, as both are sent as user.role_revoked.
            details: {
              grant: grant.id,
              role: roles.get(grant.role_id)?.name ?? grant.role_id,
              team: grant.team_id ? { id: grant.team_id, name: teams.get(grant.team_id) ?? "" } : null,
              expiresAt: grant.expires_at,
              grantedBy: grant.granted_by,
              reason: "expired",
            },
          },
          trx,
        );
      return ended.length;
    });
}

/**
 * Tells the holders of grants that end within a day, in the app and by email, in their language.
 * Each grant is marked as told in the same statement that picks it, so every holder hears once.
 */
export async function noticeExpiringGrants(at = new Date()): Promise<number> {
  const ts = at.toISOString();
  const roles = await roleGrants();
  // Picked, marked and stored in one transaction: a crash between them tells the holder later
  // rather than never. Only active accounts' grants are picked, so one enabled again is told.
  const notices = await db()
    .transaction()
    .execute(async (trx) => {
      const picked = await trx
        .updateTable("user_role")
        .set({ expiry_noticed_at: ts })
        .where("expiry_noticed_at", "is", null)
        .where("expires_at", ">", ts)
        .where("expires_at", "<=", new Date(at.getTime() + DAY_MS).toISOString())
        .where("user_id", "in", (eb) => eb.selectFrom("user").select("id").where("status", "=", "active"))
        .returning(["id", "user_id", "role_id", "team_id", "expires_at"])
        .execute();
      if (picked.length === 0) return [];
      const people = new Map(
        (
          await trx
            .selectFrom("user")
            .select(["id", "name", "email", "locale"])
            .where(
              "id",
              "in",
              picked.map((g) => g.user_id),
            )
            .execute()
        ).map((p) => [p.id, p] as const),
      );
      const teams = await teamNames(
        trx,
        picked.flatMap((g) => (g.team_id ? [g.team_id] : [])),
      );
      const out: { row: NoticeRow; to: Person }[] = [];
      for (const grant of picked) {
        const person = people.get(grant.user_id);
        const role = roles.get(grant.role_id);
        if (!person || !role || !grant.expires_at) continue;
        out.push({ to: person, row: notice(person, role, grant, teams, ts) });
      }
      await storeNotices(
        trx,
        out.map((n) => n.row),
      );
      return out;
    });
  await publishNotices(
    notices.map((n) => n.row),
    null,
  );
  await Promise.all(
    notices.map(({ row, to }) =>
      trySend(origin, { type: "notification", to: to.email }, () =>
        sendNotificationEmail({
          to: to.email,
          name: to.name,
          subject: row.title,
          message: row.message,
          actionUrl: settingsUrl("profile", "access"),
          language: to.locale ?? undefined,
        }),
      ),
    ),
  );
  return notices.length;
}

type Person = { id: string; name: string; email: string; locale: string | null };

function notice(
  person: Person,
  role: RoleGrant,
  grant: { team_id: string | null; expires_at: string | Date | null },
  teams: Map<string, string>,
  ts: string,
): NoticeRow {
  const t = tFor(person.locale);
  const label = roleLabel(t, role);
  const when = `${new Intl.DateTimeFormat(intlLocale(person.locale ?? "en"), {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "UTC",
  }).format(new Date(grant.expires_at!))} UTC`;
  const team = grant.team_id ? teams.get(grant.team_id) : undefined;
  return {
    id: randomUUID(),
    user_id: person.id,
    broadcast_id: null,
    kind: "security",
    title: t("settings:access.endingNotice.title", { role: label }),
    message: team
      ? t("settings:access.endingNotice.inTeam", { role: label, team, when })
      : t("settings:access.endingNotice.message", { role: label, when }),
    level: "info",
    link: "/dashboard/settings/profile#access",
    read_at: null,
    created_at: ts,
  };
}

async function teamNames(executor: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await executor.selectFrom("team").select(["id", "name"]).where("id", "in", ids).execute();
  return new Map(rows.map((t) => [t.id, t.name] as const));
}

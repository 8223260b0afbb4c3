import { randomUUID } from "node:crypto";
import { liveGlobal } from "../access/grant-rows.server";
import { superAdminRoleIds } from "../access/rules.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { assertReauthenticated, type ReauthProof } from "../auth/account.server";
import { settingsUrl } from "../auth/links.server";
import type { SessionUser } from "../auth/session.server";
import { db, type Executor, now } from "../db.server";
import { RuleViolation } from "../domain-errors";
import { tFor } from "../i18n/i18n.server";
import type { MessageKey } from "../i18n/message";
import { sendSettingsChangedEmail } from "../mail/senders.server";
import type { MailRouting } from "../mail/transport.server";
import { trySend } from "../mail/try-send.server";
import { type NoticeRow, publishNotices, storeNotices } from "../notifications/notices.server";
import type { ConfigKey, SuperAdminRule } from "../system-settings/config-keys";
import { configLabel } from "../system-settings/config-labels";
import { getSystemConfig } from "../system-settings/system-config.server";

// Whoever controls where account mail goes reads every password reset link, and whoever shortens the
// audit retention erases what they did (docs/rules.md, "Mail routing and the audit trail").

/** Effective values are never shown for a secret. */
export type SuperAdminChange = {
  key: ConfigKey;
  rule: SuperAdminRule;
  before: string | null;
  after: string | null;
};

const REFUSED = {
  mail_routing: "settings.superAdminOnly.mailRouting",
  audit_trail: "settings.superAdminOnly.auditTrail",
} as const satisfies Record<SuperAdminRule, MessageKey>;
const rulesOf = (changes: SuperAdminChange[]) => [...new Set(changes.map((c) => c.rule))];

/** A refusal to anyone else is audited; not while viewing as a super admin. */
export async function assertMayChangeSuperAdminSettings(
  actor: SessionUser,
  changes: SuperAdminChange[],
  reauth: ReauthProof,
  origin: AuditOrigin,
) {
  const keys = changes.map((c) => c.key);
  const rules = rulesOf(changes);
  if (!actor.isSuperAdmin || actor.impersonator) {
    await audit(origin, {
      action: "settings.update.refused",
      actor,
      target: { type: "system_setting", id: keys.join(",") },
      details: { keys, rules, reason: actor.impersonator ? "viewing_as" : "super_admin_only" },
    });
    throw new RuleViolation(rules.length > 1 ? "settings.superAdminOnly.both" : REFUSED[rules[0]!]);
  }
  await assertReauthenticated(origin, actor, reauth, rules.map((r) => `settings.${r}`).join(","));
}

/** The notice of a change travels this way, not the new one. */
async function currentMailRouting(): Promise<MailRouting> {
  const [apiKey, from] = await Promise.all([getSystemConfig("MAIL_API_KEY"), getSystemConfig("EMAIL_FROM")]);
  return { apiKey, from };
}

/**
 * Stored inside the change's transaction so no change lands without its notice, and mailed via the
 * routing from before the change, so a hostile new key cannot swallow it. The in-app notice (and its
 * live toast) goes to the other super admins only: the one who made the change needs no alarm about
 * it (issue 36). The email still goes to them too, in case it was not them but their session.
 */
export async function superAdminSettingsNotice(actor: SessionUser, changes: SuperAdminChange[]) {
  const [via, recipients] = await Promise.all([currentMailRouting(), activeSuperAdmins()]);
  const ts = now();
  const at = `${ts.slice(0, 16).replace("T", " ")} UTC`;
  const link = "/dashboard/settings/system";
  const notices = recipients.map((r) => {
    const t = tFor(r.locale);
    const who = { actor: actor.name, email: actor.email, at };
    const parts: string[] = [];
    const routing = changes.filter((c) => c.rule === "mail_routing");
    if (routing.length > 0)
      parts.push(
        t("emails:settingsChanged.detail", {
          ...who,
          settings: routing.map((c) => configLabel(t, c.key)).join(", "),
        }),
      );
    for (const c of changes.filter((c) => c.rule === "audit_trail"))
      parts.push(
        t("emails:settingsChanged.auditDetail", {
          ...who,
          setting: configLabel(t, c.key),
          before: c.before ?? "",
          after: c.after ?? "",
        }),
      );
    return {
      recipient: r,
      row: {
        id: randomUUID(),
        user_id: r.id,
        broadcast_id: null,
        kind: "security",
        title: t("emails:settingsChanged.subject"),
        message: parts.join(" "),
        level: "warning",
        link,
        read_at: null,
        created_at: ts,
      } satisfies NoticeRow,
    };
  });
  const rows = notices.filter((n) => n.recipient.id !== actor.id).map((n) => n.row);
  return {
    async store(executor: Executor) {
      await storeNotices(executor, rows);
    },
    async deliver(origin: AuditOrigin) {
      await publishNotices(rows, null);
      await Promise.all(
        notices.map(({ recipient, row }) =>
          trySend(origin, { type: "settings-changed", to: recipient.email }, () =>
            sendSettingsChangedEmail({
              to: recipient.email,
              name: recipient.name,
              detail: row.message,
              settingsUrl: settingsUrl("system"),
              language: recipient.locale ?? undefined,
              via,
            }),
          ),
        ),
      );
    },
  };
}

async function activeSuperAdmins() {
  const roleIds = await superAdminRoleIds();
  if (roleIds.length === 0) return [];
  return db()
    .selectFrom("user")
    .select(["user.id", "user.name", "user.email", "user.locale"])
    .where("user.status", "=", "active")
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("user_role")
          .select("user_role.user_id")
          .whereRef("user_role.user_id", "=", "user.id")
          .where("user_role.role_id", "in", roleIds)
          .where(liveGlobal),
      ),
    )
    .orderBy("user.id")
    .execute();
}

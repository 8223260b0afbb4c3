import { randomUUID } from "node:crypto";
import { superAdminRoleIds } from "../access/rules.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { assertCurrentPassword } from "../auth/account.server";
import type { SessionUser } from "../auth/session.server";
import { db, type Executor, now } from "../db.server";
import { InvalidInput, RuleViolation } from "../domain-errors";
import { baseUrl } from "../env.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";
import { tFor } from "../i18n/i18n.server";
import { sendSettingsChangedEmail } from "../mail/senders.server";
import type { MailRouting } from "../mail/transport.server";
import { trySend } from "../mail/try-send.server";
import type { ConfigKey } from "./config-keys";
import { configLabel } from "./config-labels";
import { getSystemConfig } from "./system-config.server";

// The settings that decide where account mail goes (`mailRouting` in config-keys.ts): whoever
// controls them reads every password reset link, a super admin's too. So only a super admin who
// enters their password again changes them, and every super admin hears of each change
// (docs/rules.md, "Mail routing"; issue 20, item 1).

const ROUTING_REFUSED =
  "Only a super admin can change where account mail goes (the mail key and the sender).";
const ROUTING_PASSWORD_MISSING = "Enter your current password to change where account mail goes.";

/**
 * Throws unless `actor` may change the mail routing settings `keys` now: a super admin (not someone
 * viewing as one) whose password is right. A refusal to anyone else is audited; a wrong password
 * is audited and counted by assertCurrentPassword, like every re-authentication.
 */
export async function assertMayChangeMailRouting(
  actor: SessionUser,
  keys: ConfigKey[],
  currentPassword: string | undefined,
  origin: AuditOrigin,
) {
  if (!actor.isSuperAdmin || actor.impersonator) {
    await audit(origin, {
      action: "settings.update.refused",
      actor,
      target: { type: "system_setting", id: keys.join(",") },
      details: { keys, reason: actor.impersonator ? "viewing_as" : "super_admin_only" },
    });
    throw new RuleViolation(ROUTING_REFUSED);
  }
  if (!currentPassword) throw new InvalidInput(ROUTING_PASSWORD_MISSING, "currentPassword");
  await assertCurrentPassword(origin, actor, currentPassword, "settings.mail_routing");
}

/** How mail goes out right now: the notice of a change travels this way, not the new one. */
async function currentMailRouting(): Promise<MailRouting> {
  const [apiKey, from] = await Promise.all([getSystemConfig("MAIL_API_KEY"), getSystemConfig("EMAIL_FROM")]);
  return { apiKey, from };
}

/**
 * The notice of a mail routing change for every active super admin, in the app and by email (each
 * in their language): which settings `actor` changed and when, never a value. Prepared before the
 * change's transaction (SQLite has one connection), `store`d inside it so no change lands without
 * its notice, and `deliver`ed after the commit: live, and by email `via` the routing from before the
 * change, so a hostile new key cannot swallow it. A failed email is audited (trySend) and does not
 * undo the change.
 */
export async function mailRoutingNotice(actor: SessionUser, keys: ConfigKey[]) {
  const [via, recipients] = await Promise.all([currentMailRouting(), activeSuperAdmins()]);
  const ts = now();
  const at = `${ts.slice(0, 16).replace("T", " ")} UTC`;
  const link = "/dashboard/settings#system";
  const notices = recipients.map((r) => {
    const t = tFor(r.locale);
    const settings = keys.map((key) => configLabel(t, key)).join(", ");
    return {
      recipient: r,
      row: {
        id: randomUUID(),
        user_id: r.id,
        broadcast_id: null,
        title: t("emails:settingsChanged.subject"),
        message: t("emails:settingsChanged.detail", { actor: actor.name, email: actor.email, at, settings }),
        level: "warning" as const,
        link,
        read_at: null,
        created_at: ts,
      },
    };
  });
  return {
    async store(executor: Executor) {
      if (notices.length === 0) return;
      await executor
        .insertInto("notification")
        .values(notices.map((n) => n.row))
        .execute();
    },
    async deliver(origin: AuditOrigin) {
      const bus = systemBus();
      for (const { row } of notices) {
        bus.publish(SYSTEM_EVENT_CHANNEL, {
          type: "broadcast",
          userId: row.user_id,
          notificationId: row.id,
          title: row.title,
          message: row.message,
          level: row.level,
          link: row.link,
        });
      }
      await Promise.all(
        notices.map(({ recipient, row }) =>
          trySend(origin, { type: "settings-changed", to: recipient.email }, () =>
            sendSettingsChangedEmail({
              to: recipient.email,
              name: recipient.name,
              message: row.message,
              settingsUrl: `${baseUrl()}${link}`,
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
          .where("user_role.role_id", "in", roleIds),
      ),
    )
    .orderBy("user.id")
    .execute();
}

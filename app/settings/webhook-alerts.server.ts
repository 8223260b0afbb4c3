import { randomUUID } from "node:crypto";
import { liveGlobal } from "../access/grant-rows.server";
import { roleGrants } from "../access/role-cache.server";
import { audit } from "../audit/audit.server";
import { settingsUrl } from "../auth/links.server";
import { db, now } from "../db.server";
import { tFor } from "../i18n/i18n.server";
import { sendNotificationEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { type NoticeRow, publishNotices, storeNotices } from "../notifications/notices.server";
import type { DisabledEndpoint } from "../webhooks/delivery.server";

const origin = {
  request: new Request("http://internal/webhooks", { headers: { "User-Agent": "webhook-dispatcher" } }),
};

/** Everyone who may act on it: active holders of settings.manage (super admins included). */
async function settingsManagers() {
  const grants = await roleGrants();
  const roleIds = [...grants.values()]
    .filter((g) => g.all || g.permissions.has("settings.manage"))
    .map((g) => g.id);
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
    .execute();
}

/**
 * The dispatcher disabled an endpoint (410 Gone, or 3 days of failures): audited, and every
 * settings.manage holder is told in the app (a security notice) and by email, in their language.
 */
export async function alertEndpointDisabled(endpoint: DisabledEndpoint) {
  const recipients = await settingsManagers();
  const ts = now();
  const link = "/dashboard/settings/webhooks";
  const rows: NoticeRow[] = recipients.map((r) => {
    const t = tFor(r.locale);
    return {
      id: randomUUID(),
      user_id: r.id,
      broadcast_id: null,
      kind: "security",
      title: t("settings:webhooks.disabledNotice.title"),
      message: t("settings:webhooks.disabledNotice.message", { url: endpoint.url, reason: endpoint.reason }),
      level: "warning",
      link,
      read_at: null,
      created_at: ts,
    };
  });
  await db()
    .transaction()
    .execute(async (trx) => {
      await storeNotices(trx, rows);
      await audit(
        origin,
        {
          action: "webhook.endpoint.disabled",
          target: { type: "webhook_endpoint", id: endpoint.id },
          details: { url: endpoint.url, reason: endpoint.reason },
        },
        trx,
      );
    });
  await publishNotices(rows, null);
  await Promise.all(
    recipients.map((r, i) =>
      trySend(origin, { type: "notification", to: r.email }, () =>
        sendNotificationEmail({
          to: r.email,
          name: r.name,
          subject: rows[i]!.title,
          message: rows[i]!.message,
          actionUrl: settingsUrl("webhooks"),
          language: r.locale ?? undefined,
        }),
      ),
    ),
  );
}

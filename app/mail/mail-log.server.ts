import { randomUUID } from "node:crypto";
import type { MailLogTable } from "../../db/schema";
import { db, now } from "../db.server";
import type { MailLogEntry } from "./mail-log-entry";

export type { MailLogEntry };

export type MailRecord = {
  to: string;
  type: string;
  subject: string;
  status: MailLogTable["status"];
  providerMessageId?: string | null;
  error?: string | null;
  outboxLink?: string | null;
  /** The email_template version whose words it used; null: the product's. */
  templateVersion?: number | null;
};

/** One row per send attempt; never the body, so tokens in links stay out of it (outbox aside). */
export async function recordMail(record: MailRecord) {
  await db()
    .insertInto("mail_log")
    .values({
      id: randomUUID(),
      to_address: record.to,
      type: record.type,
      subject: record.subject,
      status: record.status,
      provider_message_id: record.providerMessageId ?? null,
      error: record.error?.slice(0, 1000) ?? null,
      outbox_link: record.status === "outbox" ? (record.outboxLink ?? null) : null,
      template_version: record.templateVersion ?? null,
      created_at: now(),
    })
    .execute();
}

/**
 * The newest `limit` sends: Settings shows these and no more (a bounded view of a log that grows
 * without bound), read from the end of mail_log_created_id_idx. A development outbox link is a live
 * token (a reset link, say), so `viewer` sees it only on mail to themselves, unless a super admin:
 * an admin must not read a super admin's reset link here (docs/rules.md, "Mail routing and the audit trail").
 */
export async function recentMail(
  limit: number,
  viewer: { email: string; isSuperAdmin: boolean },
): Promise<MailLogEntry[]> {
  const rows = await db()
    .selectFrom("mail_log")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    to: r.to_address,
    type: r.type,
    subject: r.subject,
    status: r.status,
    providerMessageId: r.provider_message_id,
    error: r.error,
    outboxLink: viewer.isSuperAdmin || r.to_address === viewer.email ? r.outbox_link : null,
    templateVersion: r.template_version,
    createdAt: r.created_at,
  }));
}

import { randomUUID } from "node:crypto";
import { BROADCAST_READS } from "../../db/counted-tables";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { InvalidInput } from "../domain-errors";
import { describeAudience, resolveAudience } from "./audience.server";
import { type Audience, type BroadcastInput, isSafeLink, LINK_INSIDE_APP } from "./broadcast-schema";
import { type NoticeRow, publishNotices, storeNotices } from "./notices.server";

/** Every notification is of kind "broadcast", so the bell names `actor` and never shows it as a security notice. */
export async function sendBroadcast(actor: SessionUser, input: BroadcastInput, origin: AuditOrigin) {
  if (input.link !== null && !isSafeLink(input.link)) throw new InvalidInput(LINK_INSIDE_APP, "link");
  const recipients = await resolveAudience(input.audience);
  // Resolved before the transaction: SQLite has one connection, which the transaction holds.
  const audienceLabel = await describeAudience(input.audience);
  const id = randomUUID();
  const ts = now();
  const notifications: NoticeRow[] = recipients.map((r) => ({
    id: randomUUID(),
    user_id: r.id,
    broadcast_id: id,
    kind: "broadcast",
    title: input.title,
    message: input.message,
    level: input.level,
    link: input.link,
    read_at: null,
    created_at: ts,
  }));
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("broadcast")
        .values({
          id,
          title: input.title,
          message: input.message,
          level: input.level,
          link: input.link,
          audience: JSON.stringify(input.audience),
          recipient_count: recipients.length,
          email_status: input.email && recipients.length ? "pending" : "none",
          created_by: actor.id,
          created_at: ts,
        })
        .execute();
      await storeNotices(trx, notifications);
      await audit(
        origin,
        {
          action: "broadcast.send",
          actor,
          target: { type: "broadcast", id },
          details: {
            title: input.title,
            level: input.level,
            audience: audienceLabel,
            recipients: recipients.length,
            email: input.email,
          },
        },
        trx,
      );
    });
  await publishNotices(notifications, actor.name);
  return { id, recipients: recipients.length };
}

/** Read counts from maintained counters (decision 016), not a count of notifications. */
export async function broadcastHistory(limit = 50) {
  const rows = await db()
    .selectFrom("broadcast")
    .leftJoin("user", "user.id", "broadcast.created_by")
    .leftJoin("stat_count as reads", (join) =>
      join
        .onRef("reads.scope", "=", "broadcast.id")
        .on("reads.day", "=", "")
        .on("reads.name", "=", BROADCAST_READS),
    )
    .select([
      "broadcast.id",
      "broadcast.title",
      "broadcast.level",
      "broadcast.audience",
      "broadcast.recipient_count",
      "broadcast.email_status",
      "broadcast.emails_sent",
      "broadcast.emails_failed",
      "broadcast.created_at",
      "user.name as sender",
      "reads.n as reads",
    ])
    .orderBy("broadcast.created_at", "desc")
    .limit(limit)
    .execute();
  return Promise.all(
    rows.map(async (r) => ({
      ...r,
      audience: await describeAudience(JSON.parse(r.audience) as Audience),
      reads: Number(r.reads ?? 0),
    })),
  );
}

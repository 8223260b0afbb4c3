import { z } from "zod";
import { db } from "../../db.server";
import { baseUrl } from "../../env.server";
import { english } from "../../i18n/english.server";
import { sendBroadcastEmail } from "../../mail/senders.server";
import { reachable } from "../../notifications/audience.server";
import { defineTask, TaskError } from "../definition.server";

// One notification email per recipient of a broadcast, with progress the sender can watch.
export const broadcastEmail = defineTask({
  type: "broadcast.email",
  permission: "settings.manage",
  // Sends mail: a second run would mail the recipients already reached again (and finds the
  // broadcast claimed), so a run cut off is failed instead of run again.
  rerunnable: false,
  payload: z.object({ broadcastId: z.string().uuid() }),
  async run({ broadcastId }, { signal, progress }) {
    const broadcast = await db()
      .selectFrom("broadcast")
      .selectAll()
      .where("id", "=", broadcastId)
      .executeTakeFirst();
    if (!broadcast) throw new TaskError(english("tasks.failure.broadcastGone"));
    // Only a pending broadcast is sent, so a repeated request never mails everyone twice.
    const claimed = await db()
      .updateTable("broadcast")
      .set({ email_status: "sending" })
      .where("id", "=", broadcastId)
      .where("email_status", "=", "pending")
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0)
      throw new TaskError(english("tasks.failure.broadcastAlreadySent"));

    const recipients = await db()
      .selectFrom("notification")
      .innerJoin("user", "user.id", "notification.user_id")
      .select(["user.name", "user.email", "user.locale"])
      .where("notification.broadcast_id", "=", broadcastId)
      // Who was reached then, if still enabled and verified now (an account disabled since gets no mail).
      .where(reachable)
      .orderBy("user.email")
      .execute();
    const sender = broadcast.created_by
      ? ((await db()
          .selectFrom("user")
          .select(["name", "email"])
          .where("id", "=", broadcast.created_by)
          .executeTakeFirst()) ?? null)
      : null;
    const link = broadcast.link ? new URL(broadcast.link, baseUrl()).href : `${baseUrl()}/dashboard`;
    let sent = 0;
    let failed = 0;
    for (const [i, r] of recipients.entries()) {
      if (signal.aborted) break;
      try {
        await sendBroadcastEmail({
          to: r.email,
          name: r.name,
          sender,
          title: broadcast.title,
          message: broadcast.message,
          actionUrl: link,
          // The admin wrote the title and message; the rest of the email is in the recipient's language.
          language: r.locale ?? "en",
        });
        sent++;
      } catch {
        failed++;
      }
      progress((i + 1) / recipients.length, `${i + 1} of ${recipients.length}`);
    }
    const status = failed && !sent ? "failed" : "done";
    await db()
      .updateTable("broadcast")
      .set({ email_status: status, emails_sent: sent, emails_failed: failed })
      .where("id", "=", broadcastId)
      .execute();
    return { sent, failed, recipients: recipients.length };
  },
});

import { db, now } from "../db.server";

/** Every query is keyed by the session's user id; notification_unread_idx holds unread rows only. */
export async function unreadCount(userId: string): Promise<number> {
  const { count } = await db()
    .selectFrom("notification")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** The newest `limit` only, read from the end of notification_user_created_id_idx. */
export async function recentNotifications(userId: string, limit = 20) {
  const rows = await db()
    .selectFrom("notification")
    .leftJoin("broadcast", "broadcast.id", "notification.broadcast_id")
    .leftJoin("user as sender", "sender.id", "broadcast.created_by")
    .select([
      "notification.id",
      "notification.kind",
      "notification.title",
      "notification.message",
      "notification.level",
      "notification.link",
      "notification.read_at",
      "notification.created_at",
      "sender.name as sender",
    ])
    .where("notification.user_id", "=", userId)
    .orderBy("notification.created_at", "desc")
    .orderBy("notification.id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, sender: r.kind === "broadcast" ? (r.sender ?? null) : null }));
}

export async function markRead(userId: string, notificationId: string): Promise<boolean> {
  const res = await db()
    .updateTable("notification")
    .set({ read_at: now() })
    .where("id", "=", notificationId)
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function markAllRead(userId: string): Promise<number> {
  const res = await db()
    .updateTable("notification")
    .set({ read_at: now() })
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

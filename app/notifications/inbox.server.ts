import { db, now } from "../db.server";

/**
 * The signed-in user's own notifications; every query is keyed by the session's user id.
 * The unread count reads notification_unread_idx, which holds unread rows only.
 */
export async function unreadCount(userId: string): Promise<number> {
  const { count } = await db()
    .selectFrom("notification")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("user_id", "=", userId)
    .where("read_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * The bell's list: the newest `limit` only, however many a person has (a bounded view, read from
 * the end of notification_user_created_id_idx; the tie-breaker runs the index's way too).
 */
export async function recentNotifications(userId: string, limit = 20) {
  return db()
    .selectFrom("notification")
    .select(["id", "title", "message", "level", "link", "read_at", "created_at"])
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
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

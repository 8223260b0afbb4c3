import type { NoticeLevel, NotificationKind } from "../../db/schema";
import type { Executor } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";

/**
 * A notification as written and pushed: every field given, `kind` too, so the bell always knows
 * who wrote it (a person's broadcast or the app's own security notice; docs/rules.md, "Broadcast").
 */
export type NoticeRow = {
  id: string;
  user_id: string;
  broadcast_id: string | null;
  kind: NotificationKind;
  title: string;
  message: string;
  level: NoticeLevel;
  link: string | null;
  read_at: string | null;
  created_at: string;
};

/** Inserts the notifications with `executor` (a transaction, so they land with what they tell of), 500 a statement. */
export async function storeNotices(executor: Executor, rows: NoticeRow[]) {
  for (let i = 0; i < rows.length; i += 500) {
    await executor
      .insertInto("notification")
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/**
 * Pushes the stored notifications live to their recipients who are connected (after the commit:
 * those offline find them in the bell later), logged in a few statements however many there are
 * (app/events/event-log.server.ts). `sender` names who wrote a broadcast; null for the app's own
 * security notice.
 */
export async function publishNotices(rows: NoticeRow[], sender: string | null): Promise<void> {
  await systemBus().publishMany(
    SYSTEM_EVENT_CHANNEL,
    rows.map((n) => ({
      type: "broadcast" as const,
      userId: n.user_id,
      notificationId: n.id,
      kind: n.kind,
      sender,
      title: n.title,
      message: n.message,
      level: n.level,
      link: n.link,
    })),
  );
}

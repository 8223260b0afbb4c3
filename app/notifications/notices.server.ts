import type { NoticeLevel, NotificationKind } from "../../db/schema";
import type { Executor } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL } from "../events/event-types";

/** `kind` is always given, so the bell knows who wrote it (docs/rules.md, "Broadcast"). */
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

/** In a transaction, so they land with what they tell of. */
export async function storeNotices(executor: Executor, rows: NoticeRow[]) {
  for (let i = 0; i < rows.length; i += 500) {
    await executor
      .insertInto("notification")
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** After the commit; those offline find them in the bell later. `sender` is null for the app's own notice. */
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

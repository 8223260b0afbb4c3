import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db } from "../db.server";
import { broadcastHistory } from "./broadcast.server";
import { markAllRead, recentNotifications, unreadCount } from "./inbox.server";

// The bell shows a person's newest 20 notifications and broadcast history the newest 50 notices:
// bounded views of tables that grow without bound, each an index range read from its newest end.
// The unread count reads unread rows only (notification_unread_idx).

let person = "";
beforeAll(async () => {
  await setupDatabase();
  person = (await createUser()).id;
});

describe("notification query plans", () => {
  it("the bell's list, its unread count and mark-all-read read one person's index range", async () => {
    for (const fn of [
      () => recentNotifications(person),
      () => unreadCount(person),
      () => markAllRead(person),
      () => broadcastHistory(),
    ]) {
      const { plans } = await plansOf(db(), fn);
      expect(badPlans(plans)).toEqual([]);
    }
  });
});

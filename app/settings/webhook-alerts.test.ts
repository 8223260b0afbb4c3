import { beforeAll, describe, expect, it } from "vitest";
import { createUser, setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { db } from "../db.server";
import { alertEndpointDisabled } from "./webhook-alerts.server";

// When the dispatcher disables an endpoint (410 Gone, or 3 days of failures), everyone who may turn
// it on again hears of it: a security notice in the app and an email, and the log records it.

const postmark = withFakePostmark();
beforeAll(setupDatabase);

describe("a disabled webhook endpoint", () => {
  it("notifies and emails every active settings.manage holder, no one else, and audits it", async () => {
    const admin = await createUser({ roles: ["admin"], email: "ops-admin@example.test" });
    const gone = await createUser({ roles: ["admin"], email: "gone-admin@example.test" });
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", gone.id).execute();
    const manager = await createUser({ roles: ["manager"], email: "manager@example.test" });

    await alertEndpointDisabled({
      id: "ep_1",
      url: "https://hooks.example.test/in",
      reason: "The receiver answered 410 Gone.",
    });

    const notices = await db()
      .selectFrom("notification")
      .select(["user_id", "kind", "message", "link"])
      .execute();
    const to = new Set(notices.map((n) => n.user_id));
    expect(to.has(admin.id)).toBe(true);
    expect(to.has(gone.id)).toBe(false);
    expect(to.has(manager.id)).toBe(false);
    expect(notices.find((n) => n.user_id === admin.id)).toMatchObject({
      kind: "security",
      link: "/dashboard/settings/webhooks",
      message: expect.stringContaining("https://hooks.example.test/in"),
    });
    const mailed = postmark.fake.messages.map((m) => m.To);
    expect(mailed).toContain("ops-admin@example.test");
    expect(mailed).not.toContain("gone-admin@example.test");
    expect(mailed).not.toContain("manager@example.test");
    const row = await db()
      .selectFrom("audit_log")
      .select(["action", "target_id"])
      .where("action", "=", "webhook.endpoint.disabled")
      .executeTakeFirstOrThrow();
    expect(row.target_id).toBe("ep_1");
  });
});

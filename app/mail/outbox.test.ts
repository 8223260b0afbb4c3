import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { setSystemConfig } from "../settings/system-config.server";
import { recentMail } from "./mail-log.server";
import { sendPasswordResetEmail } from "./senders.server";

// No MAIL_API_KEY in the environment: the laptop case.
const postmark = withFakePostmark({ withKey: false });
beforeAll(setupDatabase);

describe("development outbox", () => {
  it("takes the mail when no key is set anywhere and keeps its link for the Settings page", async () => {
    const url = "http://localhost:3000/reset-password?token=abc";
    const delivery = await sendPasswordResetEmail({ to: "bob@example.test", name: "Bob", resetUrl: url });
    expect(delivery.via).toBe("outbox");
    expect(postmark.fake.messages).toHaveLength(0);
    const [log] = await recentMail(1);
    expect(log).toMatchObject({
      to: "bob@example.test",
      type: "reset-password",
      status: "outbox",
      outboxLink: url,
    });
  });

  it("switches to the provider once a key is saved in Settings (not the environment)", async () => {
    await setSystemConfig("MAIL_API_KEY", "settings-only-token-1", null);
    const delivery = await sendPasswordResetEmail({
      to: "bob@example.test",
      name: "Bob",
      resetUrl: "http://x.test/r",
    });
    expect(delivery.via).toBe("postmark");
    expect(postmark.fake.messages.map((m) => m.token)).toEqual(["settings-only-token-1"]);
  });
});

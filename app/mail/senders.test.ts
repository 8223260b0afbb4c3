import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { setupDatabase } from "../../test/helpers";
import { TEST_MAIL_KEY, withFakePostmark } from "../../test/mail-helpers";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { DEFAULT_EMAIL_FROM } from "../system-settings/config-keys";
import { clearSystemConfigCache, setSystemConfig } from "../system-settings/system-config.server";
import { recentMail } from "./mail-log.server";
import { sendVerificationEmail } from "./senders.server";
import { postmarkOptions } from "./transport.server";

const postmark = withFakePostmark();
beforeAll(setupDatabase);
afterEach(async () => {
  delete process.env.EMAIL_FROM;
  resetEnvCache();
  await db().deleteFrom("system_setting").execute();
  clearSystemConfigCache();
});

const input = {
  to: "ada@example.test",
  name: "Ada",
  verificationUrl: "http://localhost:3000/api/auth/verify-email?token=t0k",
};

describe("sendVerificationEmail", () => {
  it("sends one email with the exact subject, the fallback sender and the verification template", async () => {
    const delivery = await sendVerificationEmail(input);
    expect(postmark.fake.messages).toHaveLength(1);
    const [m] = postmark.fake.messages;
    expect(m).toMatchObject({
      Subject: "Verify your email address",
      From: DEFAULT_EMAIL_FROM,
      To: "ada@example.test",
      Tag: "verification",
      token: TEST_MAIL_KEY,
    });
    expect(m!.TextBody).toContain("Hello Ada,");
    expect(m!.TextBody).toContain(input.verificationUrl);
    expect(m!.HtmlBody).toContain(`href="${input.verificationUrl}"`);
    expect(delivery).toEqual({ via: "postmark", messageId: m!.MessageID });
    const [log] = await recentMail(1, { email: "", isSuperAdmin: true });
    expect(log).toMatchObject({
      to: input.to,
      type: "verification",
      status: "sent",
      providerMessageId: m!.MessageID,
    });
    expect(log!.outboxLink).toBeNull();
  });

  it("uses EMAIL_FROM from the environment, and from Settings over the environment", async () => {
    process.env.EMAIL_FROM = "env-sender@example.test";
    resetEnvCache();
    await sendVerificationEmail(input);
    await setSystemConfig("EMAIL_FROM", "db-sender@example.test", null);
    await sendVerificationEmail(input);
    expect(postmark.fake.messages.map((m) => m.From)).toEqual([
      "env-sender@example.test",
      "db-sender@example.test",
    ]);
  });

  it("throws 'Failed to send verification email: ' + the provider's message, and logs the failure", async () => {
    postmark.fake.failNext({ ErrorCode: 300, Message: "Invalid 'To' address: 'ada@example.test'." });
    const error = await sendVerificationEmail(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      "Failed to send verification email: Invalid 'To' address: 'ada@example.test'.",
    );
    const [log] = await recentMail(1, { email: "", isSuperAdmin: true });
    expect(log).toMatchObject({ status: "failed", error: "Invalid 'To' address: 'ada@example.test'." });
  });

  it("uses a key saved in Settings on the very next send", async () => {
    await setSystemConfig("MAIL_API_KEY", "db-server-token-9999", null);
    await sendVerificationEmail(input);
    expect(postmark.fake.messages.at(-1)?.token).toBe("db-server-token-9999");
  });
});

describe("postmarkOptions", () => {
  it("splits MAIL_API_URL into the client's scheme and host", () => {
    expect(postmarkOptions("http://127.0.0.1:4010")).toMatchObject({
      useHttps: false,
      requestHost: "127.0.0.1:4010",
    });
    expect(postmarkOptions("https://mail.example.test/pm/")).toMatchObject({
      useHttps: true,
      requestHost: "mail.example.test/pm",
    });
    expect(postmarkOptions(undefined)).not.toHaveProperty("requestHost");
  });
});

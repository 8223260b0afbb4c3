import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { getSessionUser } from "../auth/session.server";
import { systemData } from "../settings/workspace-settings.server";
import { resetSystemConfig, setSystemConfig } from "../system-settings/system-config.server";
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
    const [log] = await recentMail(1, { email: "", isSuperAdmin: true });
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

  it("shows an outbox link in Settings only to its addressee or a super admin: an admin never reads a super admin's reset link", async () => {
    await resetSystemConfig("MAIL_API_KEY");
    const admin = await createUser({ roles: ["admin"] });
    const root = await createUser({ roles: ["super_admin"] });
    const rootLink = "http://localhost:3000/reset-password?token=root-secret";
    const adminLink = "http://localhost:3000/reset-password?token=admin-own";
    await sendPasswordResetEmail({ to: root.email, name: "Root", resetUrl: rootLink });
    await sendPasswordResetEmail({ to: admin.email, name: "Admin", resetUrl: adminLink });
    const linksFor = async (id: string) => {
      const req = request("/dashboard/settings/system", { cookie: await sessionCookieFor(id) });
      const user = (await getSessionUser(args(req)))!;
      const page = await systemData(user);
      return Object.fromEntries(page.mailLog.map((e) => [e.to, e.outboxLink]));
    };
    const asAdmin = await linksFor(admin.id);
    expect(asAdmin[root.email]).toBeNull();
    expect(asAdmin[admin.email]).toBe(adminLink);
    expect(JSON.stringify(asAdmin)).not.toContain("root-secret");
    const asRoot = await linksFor(root.id);
    expect(asRoot[root.email]).toBe(rootLink);
  });
});

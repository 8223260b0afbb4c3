import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { inviteUser } from "../auth/invitations.server";
import { getSessionUser, invalidateSessions } from "../auth/session.server";
import { db } from "../db.server";
import { action as forgotAction } from "../routes/forgot-password";
import { action as registerAction } from "../routes/register";
import { resetRateLimits } from "../security/rate-limit.server";
import { settleDeliveries } from "./deliveries.server";
import { sendNotificationEmail } from "./senders.server";

// An email is written in its recipient's language (app/mail/mail-language.server.ts): the user's
// own setting, else the language of the browser that caused it, else English.

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

const ENGLISH = "en-US,en;q=0.9";
const GERMAN = "de-DE,de;q=0.9";

let ip = 0;
async function post(
  path: string,
  action: (a: never) => unknown,
  values: Record<string, string>,
  lang: string,
) {
  const req = formRequest(path, values, { headers: { "Accept-Language": lang } });
  const out = await run(() => action(args(req, {}, context(`198.51.100.${++ip}`))));
  await settleDeliveries();
  return out;
}

const mailTo = (to: string) => postmark.fake.messages.filter((m) => m.To === to);

async function withLocale(email: string, locale: string | null) {
  const user = await createUser({ email, roles: ["user"] });
  await db().updateTable("user").set({ locale }).where("id", "=", user.id).execute();
  await invalidateSessions();
  return user;
}

describe("the language of an email", () => {
  it("a password reset is German for a user whose setting is German, even from an English browser", async () => {
    await withLocale("greta@example.test", "de");
    await post("/forgot-password", forgotAction, { email: "greta@example.test" }, ENGLISH);
    const [mail] = mailTo("greta@example.test");
    expect(mail?.Subject).toBe("Setzen Sie Ihr Passwort zurück");
    expect(mail?.TextBody).toContain("Hallo ");
    expect(mail?.TextBody).toContain("Neues Passwort wählen");
    expect(mail?.TextBody).toContain("Wenn Sie diese E-Mail nicht angefordert haben");
    expect(mail?.TextBody).not.toContain("Hello");
    expect(mail?.HtmlBody).toMatch(/<html[^>]*lang="de"/);
  });

  it("is English for a user without a setting and an English browser", async () => {
    await withLocale("ernest@example.test", null);
    await post("/forgot-password", forgotAction, { email: "ernest@example.test" }, ENGLISH);
    const [mail] = mailTo("ernest@example.test");
    expect(mail?.Subject).toBe("Reset your password");
    expect(mail?.TextBody).toContain("Hello ");
    expect(mail?.TextBody).toContain("Choose a new password");
    expect(mail?.HtmlBody).toMatch(/<html[^>]*lang="en"/);
  });

  it("a user's English setting wins over a German browser", async () => {
    await withLocale("emma@example.test", "en");
    await post("/forgot-password", forgotAction, { email: "emma@example.test" }, GERMAN);
    expect(mailTo("emma@example.test")[0]?.Subject).toBe("Reset your password");
  });

  it("follows the browser that asked when the user has no setting", async () => {
    await withLocale("gustav@example.test", null);
    await post("/forgot-password", forgotAction, { email: "gustav@example.test" }, GERMAN);
    expect(mailTo("gustav@example.test")[0]?.Subject).toBe("Setzen Sie Ihr Passwort zurück");
  });

  it("a registration from a German browser is verified in German; from an English one, in English", async () => {
    const values = { name: "Neu", password: "a long enough passphrase" };
    await post("/register", registerAction, { ...values, email: "neu@example.test" }, GERMAN);
    await post("/register", registerAction, { ...values, email: "new@example.test" }, ENGLISH);
    expect(mailTo("neu@example.test")[0]?.Subject).toBe("Bestätigen Sie Ihre E-Mail-Adresse");
    expect(mailTo("neu@example.test")[0]?.TextBody).toContain("E-Mail-Adresse bestätigen");
    // The original specification's subject, word for word, in English.
    expect(mailTo("new@example.test")[0]?.Subject).toBe("Verify your email address");
  });

  it("an address that already has an account is told so in its owner's language", async () => {
    await withLocale("schon@example.test", "de");
    await post(
      "/register",
      registerAction,
      { name: "X", email: "schon@example.test", password: "a long enough passphrase" },
      ENGLISH,
    );
    const [mail] = mailTo("schon@example.test");
    expect(mail?.Subject).toBe("Sie haben bereits ein Konto");
    expect(mail?.TextBody).toContain("Jemand hat versucht");
  });

  it("an invitation is in the inviting admin's language, naming the admin", async () => {
    const admin = await withLocale("chefin@example.test", "de");
    await db().updateTable("user").set({ name: "Die Chefin" }).where("id", "=", admin.id).execute();
    const adminRole = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "admin")
      .executeTakeFirstOrThrow();
    await db().insertInto("user_role").values({ user_id: admin.id, role_id: adminRole.id }).execute();
    await invalidateSessions();
    const cookie = await sessionCookieFor(admin.id);
    const actor = (await getSessionUser(args(request("/", { cookie }))))!;
    const manager = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "user")
      .executeTakeFirstOrThrow();
    const origin = { request: request("/dashboard/users", { headers: { "Accept-Language": ENGLISH } }) };
    await inviteUser(actor, { email: "gast@example.test", roleIds: [manager.id] }, origin);
    const [mail] = mailTo("gast@example.test");
    expect(mail?.Subject).toBe("Sie wurden eingeladen");
    expect(mail?.TextBody).toContain("Die Chefin hat Sie zum Dashboard eingeladen.");
  });

  it("a sender given no language looks up the recipient's setting by address", async () => {
    await withLocale("bekannt@example.test", "de");
    await sendNotificationEmail({ to: "bekannt@example.test", actionUrl: "http://localhost:3000/dashboard" });
    await sendNotificationEmail({
      to: "stranger@example.test",
      actionUrl: "http://localhost:3000/dashboard",
    });
    expect(mailTo("bekannt@example.test")[0]?.Subject).toBe("Eine Mitteilung für Sie");
    expect(mailTo("stranger@example.test")[0]?.Subject).toBe("A notice for you");
  });
});

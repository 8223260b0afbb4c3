import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { getPage, pathOf, postPublicForm } from "../../test/support/public-forms";
import { db } from "../db.server";
import { action as acceptAction, loader as acceptLoader } from "../routes/accept-invite";
import { loader as verifyLoader } from "../routes/api.auth.verify-email";
import { action as forgotAction } from "../routes/forgot-password";
import { action as loginAction } from "../routes/login/route";
import { action as registerAction } from "../routes/register";
import { action as resendAction } from "../routes/resend-verification";
import { resetRateLimits } from "../security/rate-limit.server";
import { inviteUser } from "./invitations.server";
import { getSessionUser } from "./session.server";
import { hashToken } from "./tokens.server";

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

const NEW_PASSWORD = "a brand new passphrase";

const userByEmail = (email: string) =>
  db().selectFrom("user").selectAll().where("email", "=", email).executeTakeFirst();
const mailTo = (to: string) => postmark.fake.messages.filter((m) => m.To === to);

describe("registration and email verification", () => {
  it("creates an unverified user with role user, mails the link and redirects to check-inbox", async () => {
    const out = await postPublicForm("/register", registerAction, {
      name: "Reg One",
      email: "Reg.One@Example.test",
      password: NEW_PASSWORD,
    });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toMatch(/^\/check-inbox/);
    const user = await userByEmail("reg.one@example.test");
    expect(user).toMatchObject({ name: "Reg One", email_verified: 0 });
    const roles = await db()
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select("role.name")
      .where("user_id", "=", user!.id)
      .execute();
    expect(roles.map((r) => r.name)).toEqual(["user"]);
    const [mail] = mailTo("reg.one@example.test");
    expect(mail?.Subject).toBe("Verify your email address");
    const link = linkIn(mail?.TextBody, "/api/auth/verify-email?token=");
    expect(link.startsWith("http://localhost:3000/api/auth/verify-email?token=")).toBe(true);
    // Stored hashed: the raw token is nowhere in the table.
    const raw = new URL(link).searchParams.get("token")!;
    const tokens = await db().selectFrom("user_token").selectAll().where("user_id", "=", user!.id).execute();
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.token_hash).toBe(hashToken(raw));
    expect(JSON.stringify(tokens)).not.toContain(raw);

    // Unverified accounts cannot sign in.
    const early = await postPublicForm("/login", loginAction, {
      email: "reg.one@example.test",
      password: NEW_PASSWORD,
    });
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({ unverified: true });

    const verified = await getPage(pathOf(link), verifyLoader);
    expect(verified.status).toBe(302);
    expect(verified.headers.get("Location")).toBe("/login?verified=1");
    expect((await userByEmail("reg.one@example.test"))!.email_verified).toBe(1);

    const again = await getPage(pathOf(link), verifyLoader);
    expect(again).toMatchObject({ status: 400, body: { reason: "used" } });

    const signIn = await postPublicForm("/login", loginAction, {
      email: "reg.one@example.test",
      password: NEW_PASSWORD,
    });
    expect(signIn.status).toBe(302);
    const audits = await db()
      .selectFrom("audit_log")
      .select("action")
      .where("target_id", "=", user!.id)
      .execute();
    expect(audits.map((a) => a.action)).toEqual(
      expect.arrayContaining(["auth.register", "auth.email.verified"]),
    );
  });

  it("answers 400 with field errors and creates nothing for bad input, never echoing the password", async () => {
    const out = await postPublicForm("/register", registerAction, {
      name: "",
      email: "not-an-email",
      password: "password123",
    });
    expect(out.status).toBe(400);
    const errors = (out.body as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors).sort()).toEqual(["email", "name", "password"]);
    expect(JSON.stringify(out.body)).not.toContain("password123");
    const short = await postPublicForm("/register", registerAction, {
      name: "A",
      email: "short@example.test",
      password: "short",
    });
    expect((short.body as { errors: Record<string, string> }).errors.password).toMatch(/at least 10/);
    expect(await userByEmail("short@example.test")).toBeUndefined();
    expect(postmark.fake.messages).toHaveLength(0);
  });

  it("gives an existing address the same answer, creates nothing and sends the owner a notice", async () => {
    const owner = await createUser({ roles: ["user"], name: "Owner" });
    const before = await db().selectFrom("user").select(db().fn.countAll().as("n")).executeTakeFirstOrThrow();
    const out = await postPublicForm("/register", registerAction, {
      name: "Intruder",
      email: owner.email,
      password: NEW_PASSWORD,
    });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toMatch(/^\/check-inbox/);
    const after = await db().selectFrom("user").select(db().fn.countAll().as("n")).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    expect((await userByEmail(owner.email))!.name).toBe("Owner");
    const [notice] = mailTo(owner.email);
    expect(notice?.Tag).toBe("notification");
    expect(notice?.TextBody).not.toContain("verify-email");
  });

  it("keeps the account when the provider fails, so the user can ask for a new link", async () => {
    postmark.fake.failNext({
      ErrorCode: 406,
      Message: "You tried to send to a recipient that has been marked as inactive.",
    });
    const out = await postPublicForm("/register", registerAction, {
      name: "Bounce",
      email: "bounce@example.test",
      password: NEW_PASSWORD,
    });
    expect(out.status).toBe(302);
    expect(await userByEmail("bounce@example.test")).toBeDefined();
    const failed = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "mail.failed")
      .execute();
    expect(failed.at(-1)?.details).toContain("Failed to send verification email: You tried to send");
    const resent = await postPublicForm("/resend-verification", resendAction, {
      email: "bounce@example.test",
    });
    expect(resent.headers.get("Location")).toMatch(/^\/check-inbox\?for=resend&d=/);
    expect(mailTo("bounce@example.test")).toHaveLength(1);
  });

  it("rejects invalid and expired tokens with the 400 page", async () => {
    expect(
      await getPage("/api/auth/verify-email?token=nonsense-token-that-is-long-enough", verifyLoader),
    ).toMatchObject({
      status: 400,
      body: { reason: "invalid" },
    });
    expect(await getPage("/api/auth/verify-email", verifyLoader)).toMatchObject({ status: 400 });
    await postPublicForm("/register", registerAction, {
      name: "Late",
      email: "late@example.test",
      password: NEW_PASSWORD,
    });
    const link = linkIn(mailTo("late@example.test")[0]?.TextBody, "/api/auth/verify-email?token=");
    await db()
      .updateTable("user_token")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .execute();
    expect(await getPage(pathOf(link), verifyLoader)).toMatchObject({
      status: 400,
      body: { reason: "expired" },
    });
    expect((await userByEmail("late@example.test"))!.email_verified).toBe(0);
  });

  it("resends only to unverified accounts, with the same answer for every address", async () => {
    const verified = await createUser({ roles: ["user"] });
    for (const email of [verified.email, "nobody-here@example.test"]) {
      const out = await postPublicForm("/resend-verification", resendAction, { email });
      expect(out.headers.get("Location")).toMatch(/^\/check-inbox\?for=resend&d=/);
    }
    expect(postmark.fake.messages).toHaveLength(0);
  });

  it.each([
    ["/register", registerAction, { name: "R", email: "r@example.test", password: "x" }],
    ["/forgot-password", forgotAction, { email: "r@example.test" }],
    ["/resend-verification", resendAction, { email: "r@example.test" }],
  ] as const)("rate limits %s to 5 a minute per IP", async (path, action, values) => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await postPublicForm(path, action as never, values, { ip: "192.0.2.99" })).status);
    expect(statuses.slice(0, 5)).not.toContain(429);
    expect(statuses[5]).toBe(429);
    // Another address is not affected.
    expect((await postPublicForm(path, action as never, values, { ip: "192.0.2.100" })).status).not.toBe(429);
  });
});

describe("invitations", () => {
  async function inviter(roles: string[]) {
    const user = await createUser({ roles });
    const cookie = await sessionCookieFor(user.id);
    const session = (await getSessionUser(args(request("/", { cookie }))))!;
    return session;
  }
  const origin = () => ({ request: request("/dashboard/settings/invite"), context: context() });
  const roleId = async (name: string) =>
    (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;

  it("invites with chosen roles; accepting creates a verified account and signs it in", async () => {
    const admin = await inviter(["admin"]);
    await inviteUser(
      admin,
      { email: "guest.person@example.test", roleIds: [await roleId("manager")] },
      origin(),
    );
    const [mail] = mailTo("guest.person@example.test");
    expect(mail?.Tag).toBe("invite");
    const link = linkIn(mail?.TextBody, "/accept-invite?token=");
    const token = new URL(link).searchParams.get("token")!;
    expect(await getPage(pathOf(link), acceptLoader)).toMatchObject({
      status: 200,
      body: { email: "guest.person@example.test" },
    });

    const bad = await postPublicForm("/accept-invite", acceptAction, {
      token,
      name: "",
      password: "short",
      confirm: "short",
    });
    expect(bad.status).toBe(400);
    const out = await postPublicForm("/accept-invite", acceptAction, {
      token,
      name: "Guest Person",
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(out.status).toBe(302);
    expect(out.headers.get("Location")).toBe("/dashboard");
    expect(out.headers.get("Set-Cookie")).toContain("__session=");
    const user = await userByEmail("guest.person@example.test");
    expect(user).toMatchObject({ name: "Guest Person", email_verified: 1 });
    // Accepting signed them in: the user page's "last sign-in" says when, not "never".
    expect(user?.last_login_at).toBe(user?.created_at);
    const roles = await db()
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select("role.name")
      .where("user_id", "=", user!.id)
      .execute();
    expect(roles.map((r) => r.name)).toEqual(["manager"]);

    const again = await postPublicForm("/accept-invite", acceptAction, {
      token,
      name: "X",
      password: NEW_PASSWORD,
      confirm: NEW_PASSWORD,
    });
    expect(again).toMatchObject({ status: 400, body: { reason: "used" } });
    expect(await getPage(pathOf(link), acceptLoader)).toMatchObject({
      status: 400,
      body: { reason: "used" },
    });
  });

  it("refuses roles above the inviter's own and addresses that already have an account", async () => {
    const manager = await inviter(["manager", "admin"]);
    await expect(
      inviteUser(manager, { email: "x1@example.test", roleIds: [await roleId("super_admin")] }, origin()),
    ).rejects.toThrow(/cannot grant/);
    const existing = await createUser({ roles: ["user"] });
    await expect(
      inviteUser(manager, { email: existing.email, roleIds: [await roleId("user")] }, origin()),
    ).rejects.toThrow(/already has an account/);
    expect(postmark.fake.messages).toHaveLength(0);
  });
});

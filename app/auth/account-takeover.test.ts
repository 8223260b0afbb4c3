import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { postPublicForm } from "../../test/support/public-forms";
import { expectSquatterLockedOut, registerAsAttacker } from "../../test/support/squatter";
import { db } from "../db.server";
import { action as acceptAction } from "../routes/accept-invite";
import { action as forgotAction } from "../routes/forgot-password";
import { action as loginAction } from "../routes/login/route";
import { action as resetAction } from "../routes/reset-password";
import { resetRateLimits } from "../security/rate-limit.server";
import { inviteUser } from "./invitations.server";
import { getSessionUser } from "./session.server";

// Issue 34 part 2 (SECURITY-PLAYBOOK §1): a link mailed to the address proves the mailbox. Accepting
// an invitation takes over a self-registration of the address nobody verified (registered before
// the invitation or between sending and accepting), keeping nothing its registrant set and none of
// its roles; a reset by the mailbox's owner does the same. (Directories, identity providers and
// imports: app/directory/scim-takeover.test.ts, sso.test.ts, app/users/import-takeover.test.ts.)

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

const INVITEE_PASSWORD = "the invitee's own passphrase";
const origin = () => ({ request: request("/dashboard/settings/invite"), context: context() });
const roleId = async (name: string) =>
  (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;

async function inviter() {
  const user = await createUser({ roles: ["admin"] });
  const cookie = await sessionCookieFor(user.id);
  return (await getSessionUser(args(request("/", { cookie }))))!;
}

async function accept(email: string) {
  const mail = postmark.fake.messages.filter((m) => m.To === email && m.Tag === "invite").at(-1);
  const token = new URL(linkIn(mail?.TextBody, "/accept-invite?token=")).searchParams.get("token")!;
  return postPublicForm("/accept-invite", acceptAction, {
    token,
    name: "Real Person",
    password: INVITEE_PASSWORD,
    confirm: INVITEE_PASSWORD,
  });
}

async function rolesOf(userId: string) {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user_id", "=", userId)
    .execute();
  return rows.map((r) => r.name);
}

describe("an invitation to an address someone registered first", () => {
  it("registered between the invitation and its acceptance: accepting takes the account over", async () => {
    await inviteUser(
      await inviter(),
      { email: "hire@example.test", roleIds: [await roleId("manager")] },
      origin(),
    );
    const squatter = await registerAsAttacker("hire@example.test");
    const out = await accept("hire@example.test");
    expect(out.status).toBe(302);
    const row = await expectSquatterLockedOut(squatter, "invitation");
    expect(row.name).toBe("Real Person");
    expect(await rolesOf(squatter.id)).toEqual(["manager"]);
    // The invitee's own password signs in; only the one account holds the address.
    const login = await postPublicForm("/login", loginAction, {
      email: "hire@example.test",
      password: INVITEE_PASSWORD,
    });
    expect(login.status).toBe(302);
  });

  it("registered before the invitation: the invitation may be sent, and accepting takes the account over", async () => {
    const squatter = await registerAsAttacker("early@example.test");
    await inviteUser(
      await inviter(),
      { email: "early@example.test", roleIds: [await roleId("user")] },
      origin(),
    );
    expect((await accept("early@example.test")).status).toBe(302);
    await expectSquatterLockedOut(squatter, "invitation");
  });

  it("a verified account at the address is still refused, at sending and at accepting", async () => {
    const holder = await createUser({ roles: ["user"], email: "held@example.test" });
    await expect(
      inviteUser(await inviter(), { email: holder.email, roleIds: [await roleId("user")] }, origin()),
    ).rejects.toThrow(/already has an account/);
    await inviteUser(
      await inviter(),
      { email: "later@example.test", roleIds: [await roleId("user")] },
      origin(),
    );
    const later = await createUser({ roles: ["user"], email: "later@example.test" });
    expect(await accept("later@example.test")).toMatchObject({ status: 400, body: { reason: "taken" } });
    const row = await db()
      .selectFrom("user")
      .select("password_hash")
      .where("id", "=", later.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).not.toBeNull();
  });
});

describe("a password reset by the owner of an address someone registered first", () => {
  it("takes the account over: only the password chosen through the link remains", async () => {
    const squatter = await registerAsAttacker("owner@example.test");
    expect(
      (await postPublicForm("/forgot-password", forgotAction, { email: "owner@example.test" })).status,
    ).toBe(302);
    const mail = postmark.fake.messages.filter(
      (m) => m.To === "owner@example.test" && m.Tag === "reset-password",
    );
    const token = new URL(linkIn(mail.at(-1)?.TextBody, "/reset-password?token=")).searchParams.get("token")!;
    const done = await postPublicForm("/reset-password", resetAction, {
      token,
      password: INVITEE_PASSWORD,
      confirm: INVITEE_PASSWORD,
    });
    expect(done.status).toBe(302);
    await expectSquatterLockedOut(squatter, "password_reset");
    const login = await postPublicForm("/login", loginAction, {
      email: "owner@example.test",
      password: INVITEE_PASSWORD,
    });
    expect(login.status).toBe(302);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { args, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { action as settingsAction } from "../routes/dashboard.settings.invite/route";
import { action as listAction } from "../routes/dashboard.users/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";

// One rule, one place: the same input gets the same answer from every page that takes it.
const postmark = withFakePostmark();
beforeAll(setupDatabase);

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

function post(path: string, cookie: string, values: Record<string, string | string[]>) {
  return formRequest(path, values, { cookie });
}
const onList = (cookie: string, values: Record<string, string | string[]>) =>
  run(() => listAction(args(post("/dashboard/users", cookie, values))));
const onUser = (id: string, cookie: string, values: Record<string, string | string[]>) =>
  run(() => userAction(args(post(`/dashboard/users/${id}`, cookie, values), { id })));
const onSettings = (cookie: string, values: Record<string, string | string[]>) =>
  run(() => settingsAction(args(post("/dashboard/settings/invite", cookie, values))));

const userByEmail = (email: string) =>
  db().selectFrom("user").select("id").where("email", "=", email).executeTakeFirst();
const inviteTokens = () => db().selectFrom("user_token").select("id").where("kind", "=", "invite").execute();

describe("password policy", () => {
  it("an admin-set temporary password follows the register rule (no common passwords)", async () => {
    const admin = await signedIn(["admin"]);
    for (const password of ["111111111111", "password1234", "short"]) {
      const out = await onList(admin.cookie, {
        intent: "create",
        name: "Weak",
        email: "weak@example.test",
        password,
        roles: [await roleId("user")],
      });
      expect(out.status).toBe(400);
      expect((out.body as { errors: Record<string, string> }).errors.password).toBeTruthy();
    }
    expect(await userByEmail("weak@example.test")).toBeUndefined();
  });
});

describe("role ids", () => {
  it("the same role twice on create or update is one role, not a 500", async () => {
    const admin = await signedIn(["admin"]);
    const user = await roleId("user");
    const created = await onList(admin.cookie, {
      intent: "create",
      name: "Twice",
      email: "twice@example.test",
      password: "a fine long passphrase",
      roles: [user, user],
    });
    expect(created.status).toBe(302);
    const row = (await userByEmail("twice@example.test"))!;
    const links = () =>
      db().selectFrom("user_role").select("role_id").where("user_id", "=", row.id).execute();
    expect(await links()).toEqual([{ role_id: user }]);
    const manager = await roleId("manager");
    const updated = await onUser(row.id, admin.cookie, {
      intent: "update",
      name: "Twice",
      email: "twice@example.test",
      roles: [manager, user, manager],
    });
    expect(updated.status).toBe(302);
    expect((await links()).map((r) => r.role_id).sort()).toEqual([manager, user].sort());
  });

  it("a well-formed id of no role is a 400 on roles (not a rule violation), on create and invite", async () => {
    const admin = await signedIn(["admin"]);
    const ghost = "00000000-0000-4000-8000-000000000000";
    for (const out of [
      await onList(admin.cookie, {
        intent: "create",
        name: "Ghost",
        email: "ghost-role@example.test",
        password: "a fine long passphrase",
        roles: ghost,
      }),
      await onList(admin.cookie, { intent: "invite", email: "ghost-role@example.test", roles: ghost }),
    ]) {
      expect(out.status).toBe(400);
      expect((out.body as { errors: Record<string, string> }).errors.roles).toMatch(/list/);
    }
    expect(await userByEmail("ghost-role@example.test")).toBeUndefined();
  });
});

describe("invitations", () => {
  it("zero roles: 400 with a roles error from both pages, nothing sent", async () => {
    const admin = await signedIn(["admin"]);
    const before = (await inviteTokens()).length;
    const sent = postmark.fake.messages.length;
    for (const out of [
      await onList(admin.cookie, { intent: "invite", email: "none@example.test" }),
      await onSettings(admin.cookie, { intent: "invite", email: "none@example.test" }),
    ]) {
      expect(out.status).toBe(400);
      expect((out.body as { errors: Record<string, string> }).errors.roles).toBeTruthy();
    }
    expect(await inviteTokens()).toHaveLength(before);
    expect(postmark.fake.messages.length).toBe(sent);
  });

  it("a role above the inviter: 403 from both pages, nothing sent", async () => {
    const admin = await signedIn(["admin"]);
    const superRole = await roleId("super_admin");
    const before = (await inviteTokens()).length;
    for (const out of [
      await onList(admin.cookie, { intent: "invite", email: "up@example.test", roles: superRole }),
      await onSettings(admin.cookie, { intent: "invite", email: "up@example.test", roles: superRole }),
    ]) {
      expect(out.status).toBe(403);
      expect((out.body as { formError: string }).formError).toMatch(/Super Admin/);
    }
    expect(await inviteTokens()).toHaveLength(before);
  });

  it("a role id that is not a role: 400 from both pages", async () => {
    const admin = await signedIn(["admin"]);
    for (const out of [
      await onList(admin.cookie, { intent: "invite", email: "x@example.test", roles: "not-a-role" }),
      await onSettings(admin.cookie, { intent: "invite", email: "x@example.test", roles: "not-a-role" }),
    ]) {
      expect(out.status).toBe(400);
    }
  });

  it("an address that already has an account: 400 on the email field from every page", async () => {
    const admin = await signedIn(["admin"]);
    const user = await roleId("user");
    const outs = [
      await onList(admin.cookie, { intent: "invite", email: admin.email, roles: user }),
      await onSettings(admin.cookie, { intent: "invite", email: admin.email, roles: user }),
      await onList(admin.cookie, {
        intent: "create",
        name: "Dup",
        email: admin.email,
        password: "a fine long passphrase",
        roles: user,
      }),
    ];
    for (const out of outs) {
      expect(out.status).toBe(400);
      expect((out.body as { errors: Record<string, string> }).errors.email).toMatch(/already/);
    }
  });
});

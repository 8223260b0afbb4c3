import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { invalidateRoles } from "../access/role-cache.server";
import { db } from "../db.server";
import { readToast } from "../http/toast.server";
import { action as inviteAction } from "../routes/dashboard.settings.invite/route";
import { action as listAction, loader as listLoader } from "../routes/dashboard.users/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";
import { i18nMiddleware } from "../server/root-middleware.server";
import { resetSystemConfig, setSystemConfig } from "../system-settings/system-config.server";
import { describeInvitation } from "./invitations.server";

// An invitation whose email did not go out is said so, and its link can be copied by whoever could
// have sent it, each time audited; never a reset link, never to a lesser admin (docs/rules.md).

// No key in the environment: the development outbox, i.e. no mail provider set up.
const postmark = withFakePostmark({ withKey: false });
let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
}, 60_000);
afterAll(() => app?.close());
afterEach(() => resetSystemConfig("MAIL_API_KEY"));

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

async function post(
  action: (a: never) => unknown,
  path: string,
  cookie: string,
  values: Record<string, string | string[]>,
  opts: { language?: string; params?: Record<string, string> } = {},
) {
  const headers = { "Accept-Language": opts.language ?? "en" };
  const a = args(formRequest(path, values, { cookie, headers }), opts.params);
  const { request, context } = a as unknown as Parameters<typeof i18nMiddleware>[0];
  await i18nMiddleware({ request, context } as never, async () => new Response());
  return run(() => action(a));
}
const onList = (cookie: string, values: Record<string, string | string[]>, language?: string) =>
  post(listAction as never, "/dashboard/users", cookie, values, { language });

async function toastOf(out: { headers: Headers }) {
  const cookie = out.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  return (await readToast(new Request("http://localhost/", { headers: { Cookie: cookie } }))).toast;
}

type Listed = { id: string; email: string; unsent: string | null; mayCopyLink: boolean };
async function pending(cookie: string, email: string) {
  const out = await run(() => listLoader(args(request("/dashboard/users", { cookie }))));
  const all = (out.body as { invitations: Listed[] }).invitations;
  return { found: all.find((i) => i.email === email), raw: JSON.stringify(out.body) };
}

/** A custom role holding `permissions`; returns its id and name. */
async function customRole(permissions: string[]) {
  const id = crypto.randomUUID();
  const name = `custom_${id.slice(0, 8)}`;
  const ts = new Date().toISOString();
  await db().insertInto("role").values({ id, name, label: name, created_at: ts, updated_at: ts }).execute();
  await grant(id, permissions);
  return { id, name };
}

async function grant(roleId: string, permissions: string[]) {
  const rows = await db().selectFrom("permission").select("id").where("key", "in", permissions).execute();
  if (rows.length)
    await db()
      .insertInto("role_permission")
      .values(rows.map((p) => ({ role_id: roleId, permission_id: p.id })))
      .execute();
  await invalidateRoles();
}

async function auditRows(action: string, email: string) {
  return db()
    .selectFrom("audit_log")
    .select(["actor_id", "details"])
    .where("action", "=", action)
    .where("target_id", "=", email)
    .execute();
}

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

describe("an invitation that could not be mailed", () => {
  it("says so (no mail provider), and its link is copied on request, each copy audited", async () => {
    const admin = await signedIn(["admin"]);
    const email = "no-provider@example.test";
    const out = await onList(admin.cookie, { intent: "invite", email, roles: [await roleId("manager")] });
    // Answered in place, for the invite dialog to show it with the link to copy; never the link itself.
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({
      ok: true,
      intent: "invite",
      message: `The invitation for ${email} was not emailed: no mail provider is set up. Copy its link and pass it on yourself.`,
      unsent: { email },
    });
    expect(JSON.stringify(out.body)).not.toMatch(/accept-invite|v1:/);
    const { found, raw } = await pending(admin.cookie, email);
    expect(found).toMatchObject({ unsent: "no_provider", mayCopyLink: true });
    // The list never carries the link, nor its sealed form.
    expect(raw).not.toMatch(/accept-invite|v1:/);

    const first = await onList(admin.cookie, { intent: "invite-link", invitationId: found!.id });
    expect(first.status).toBe(200);
    expect(first.headers.get("Cache-Control")).toBe("no-store");
    const { link } = first.body as { link: string };
    expect(link).toMatch(/^http:\/\/localhost:3000\/accept-invite\?token=/);
    expect(await describeInvitation(tokenOf(link))).toEqual({ ok: true, email });
    // The same link again (not a new one), and a second audit row.
    const second = await onList(admin.cookie, { intent: "invite-link", invitationId: found!.id });
    expect((second.body as { link: string }).link).toBe(link);
    const rows = await auditRows("user.invite.link_copied", email);
    expect(rows.map((r) => r.actor_id)).toEqual([admin.id, admin.id]);
    expect(JSON.stringify(rows)).not.toContain(tokenOf(link));
  });

  it("says so when the provider refused it, in the inviter's language", async () => {
    await setSystemConfig("MAIL_API_KEY", "settings-token-for-refusal", null);
    const admin = await signedIn(["admin"]);
    const email = "refused@example.test";
    postmark.fake.failNext({ ErrorCode: 406, Message: "Inactive recipient" });
    const out = await onList(admin.cookie, { intent: "invite", email, roles: [await roleId("user")] }, "de");
    expect(out.body).toMatchObject({
      message: `Die Einladung für ${email} wurde nicht per E-Mail verschickt: Der Mail-Anbieter hat sie abgelehnt (Inactive recipient). Kopieren Sie den Link und geben Sie ihn selbst weiter.`,
    });
    const { found } = await pending(admin.cookie, email);
    expect(found).toMatchObject({ unsent: "refused", mayCopyLink: true });
    expect(await auditRows("mail.failed", email)).toHaveLength(1);
    const copied = await onList(admin.cookie, { intent: "invite-link", invitationId: found!.id });
    expect(copied.status).toBe(200);
  });

  it("a mailed invitation keeps no link: nothing to copy", async () => {
    await setSystemConfig("MAIL_API_KEY", "settings-token-for-sending", null);
    const admin = await signedIn(["admin"]);
    const email = "mailed@example.test";
    const out = await onList(admin.cookie, { intent: "invite", email, roles: [await roleId("user")] });
    expect(await toastOf(out)).toEqual({ kind: "success", message: `Invitation sent to ${email}.` });
    const { found } = await pending(admin.cookie, email);
    expect(found).toMatchObject({ unsent: null, mayCopyLink: false });
    const row = await db()
      .selectFrom("user_token")
      .select("data")
      .where("id", "=", found!.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.data!).unsent).toBeUndefined();
    const refused = await onList(admin.cookie, { intent: "invite-link", invitationId: found!.id });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain("accept-invite");
  });

  it("a resend that cannot be mailed says so too, and the new link is the one copied", async () => {
    const admin = await signedIn(["admin"]);
    const email = "resend@example.test";
    await onList(admin.cookie, { intent: "invite", email, roles: [await roleId("user")] });
    const before = (await pending(admin.cookie, email)).found!;
    const out = await onList(admin.cookie, { intent: "resend-invite", invitationId: before.id });
    expect((await toastOf(out))?.kind).toBe("warning");
    const after = (await pending(admin.cookie, email)).found!;
    expect(after.id).not.toBe(before.id);
    expect((await onList(admin.cookie, { intent: "invite-link", invitationId: before.id })).status).toBe(404);
    const copied = await onList(admin.cookie, { intent: "invite-link", invitationId: after.id });
    expect(await describeInvitation(tokenOf((copied.body as { link: string }).link))).toMatchObject({
      ok: true,
    });
  });

  it("from Settings: the answer says it was not mailed and names the invitation to copy", async () => {
    const admin = await signedIn(["admin"]);
    const email = "from-settings@example.test";
    const out = await post(inviteAction as never, "/dashboard/settings/invite", admin.cookie, {
      intent: "invite",
      email,
      roles: [await roleId("user")],
    });
    expect(out.status).toBe(200);
    const body = out.body as { message: string; unsent: { id: string; email: string } };
    expect(body.message).toContain("was not emailed: no mail provider is set up");
    expect(body.unsent.email).toBe(email);
    expect(JSON.stringify(body)).not.toContain("accept-invite");
  });
});

describe("the answer carrying the link", () => {
  it("is not stored by the browser or a proxy, page or data request alike", async () => {
    const admin = await signedIn(["admin"]);
    const email = "no-store@example.test";
    await onList(admin.cookie, { intent: "invite", email, roles: [await roleId("user")] });
    const { found } = await pending(admin.cookie, email);
    for (const path of ["/dashboard/users", "/dashboard/users.data"]) {
      const res = await app.fetch(path, {
        method: "POST",
        cookie: admin.cookie,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "invite-link", invitationId: found!.id }).toString(),
      });
      expect(res.status, path).toBe(200);
      expect(res.headers.get("Cache-Control"), path).toBe("no-store");
      expect(await res.text(), path).toContain("/accept-invite?token=");
    }
  });
});

describe("who may copy an invitation's link", () => {
  it("never a lesser admin for roles they may not grant: not offered, refused and audited", async () => {
    const root = await signedIn(["super_admin"]);
    const admin = await signedIn(["admin"]);
    const email = "future-boss@example.test";
    await onList(root.cookie, { intent: "invite", email, roles: [await roleId("super_admin")] });
    const asAdmin = (await pending(admin.cookie, email)).found!;
    expect(asAdmin).toMatchObject({ unsent: "no_provider", mayCopyLink: false });
    expect((await pending(root.cookie, email)).found).toMatchObject({ mayCopyLink: true });

    const refused = await onList(admin.cookie, { intent: "invite-link", invitationId: asAdmin.id });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain("accept-invite");
    const rows = await auditRows("user.invite.link_refused", email);
    expect(rows.map((r) => r.actor_id)).toEqual([admin.id]);
    expect(await auditRows("user.invite.link_copied", email)).toEqual([]);
  });

  it("needs user.write: a manager is refused before anything is looked up", async () => {
    const admin = await signedIn(["admin"]);
    const manager = await signedIn(["manager"]);
    const email = "plain@example.test";
    await onList(admin.cookie, { intent: "invite", email, roles: [await roleId("user")] });
    const { found } = await pending(admin.cookie, email);
    const out = await onList(manager.cookie, { intent: "invite-link", invitationId: found!.id });
    expect(out.status).toBe(403);
    expect(JSON.stringify(out.body)).not.toContain("accept-invite");
  });

  it("a lesser admin loses the link once the invited role grows past what they hold", async () => {
    // Helpdesk may invite (user.write) but holds neither roles.manage nor settings.manage.
    const helpdesk = await customRole(["dashboard.access", "user.read", "user.write"]);
    const contractor = await customRole(["dashboard.access"]);
    const inviter = await signedIn([helpdesk.name]);
    const email = "contractor@example.test";
    await onList(inviter.cookie, { intent: "invite", email, roles: [contractor.id] });
    const { found } = await pending(inviter.cookie, email);
    expect(found).toMatchObject({ unsent: "no_provider", mayCopyLink: true });
    expect((await onList(inviter.cookie, { intent: "invite-link", invitationId: found!.id })).status).toBe(
      200,
    );

    await grant(contractor.id, ["settings.manage"]);
    expect((await pending(inviter.cookie, email)).found).toMatchObject({ mayCopyLink: false });
    expect((await onList(inviter.cookie, { intent: "invite-link", invitationId: found!.id })).status).toBe(
      403,
    );
    expect(await auditRows("user.invite.link_refused", email)).toHaveLength(1);
  });

  it("unknown or malformed ids are 404", async () => {
    const admin = await signedIn(["admin"]);
    expect((await onList(admin.cookie, { intent: "invite-link", invitationId: "nope" })).status).toBe(404);
    const missing = crypto.randomUUID();
    expect((await onList(admin.cookie, { intent: "invite-link", invitationId: missing })).status).toBe(404);
  });
});

describe("an admin's reset or verification link that could not be mailed", () => {
  it("says so, and the link reaches nobody: not the admin, not the toast", async () => {
    const admin = await signedIn(["admin"]);
    const target = await createUser({ roles: ["user"], verified: false });
    for (const intent of ["send-reset", "resend-verification"]) {
      const out = await post(
        userAction as never,
        `/dashboard/users/${target.id}`,
        admin.cookie,
        { intent },
        {
          params: { id: target.id },
        },
      );
      expect(out.status, intent).toBe(302);
      expect(await toastOf(out), intent).toEqual({
        kind: "warning",
        message: `No email went to ${target.email}: no mail provider is set up (Settings → System). Send the link again once mail works.`,
      });
      expect(JSON.stringify(out.body) + (out.headers.get("Location") ?? "")).not.toMatch(/token=/);
    }
  });
});

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { inspectToken, issueToken } from "../auth/tokens.server";
import { db, now } from "../db.server";
import { action as listAction, loader as listLoader } from "../routes/dashboard.users/route";
import { action as userAction, loader as userLoader } from "../routes/dashboard.users.$id/route";

beforeAll(setupDatabase);

const MAILED = ["set-password", "reset-password", "verify-email", "email-change"] as const;

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

function post(path: string, cookie: string | undefined, values: Record<string, string | string[]>) {
  return formRequest(path, values, { cookie });
}

const onUser = (id: string, cookie: string | undefined, values: Record<string, string | string[]>) =>
  run(() => userAction(args(post(`/dashboard/users/${id}`, cookie, values), { id })));
const onList = (cookie: string | undefined, values: Record<string, string | string[]>) =>
  run(() => listAction(args(post("/dashboard/users", cookie, values))));

async function rolesOf(userId: string) {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user_id", "=", userId)
    .execute();
  return rows.map((r) => r.name).sort();
}

describe("users list", () => {
  it("needs user.read: redirect for visitors, 403 for a plain user", async () => {
    expect((await run(() => listLoader(args(request("/dashboard/users"))))).status).toBe(302);
    const plain = await signedIn(["user"]);
    expect(
      (await run(() => listLoader(args(request("/dashboard/users", { cookie: plain.cookie }))))).status,
    ).toBe(403);
  });

  it("filters, sorts and paginates on the server", async () => {
    const ts = Date.now();
    const managerRole = await roleId("manager");
    const rows = Array.from({ length: 300 }, (_, i) => ({
      id: randomUUID(),
      name: `Bulk ${String(i).padStart(3, "0")}`,
      email: `bulk${i}@corp.test`,
      email_verified: i % 2,
      status: (i % 10 === 0 ? "disabled" : "active") as "active" | "disabled",
      created_at: new Date(ts - i * 1000).toISOString(),
      updated_at: now(),
    }));
    for (let i = 0; i < rows.length; i += 100)
      await db()
        .insertInto("user")
        .values(rows.slice(i, i + 100))
        .execute();
    await db()
      .insertInto("user_role")
      .values(rows.filter((_, i) => i % 3 === 0).map((r) => ({ user_id: r.id, role_id: managerRole })))
      .execute();
    const viewer = await signedIn(["manager"]);
    const list = async (qs: string) => {
      const out = await run(() =>
        listLoader(args(request(`/dashboard/users?${qs}`, { cookie: viewer.cookie }))),
      );
      return out.body as {
        rows: { name: string; email: string; roles: { name: string }[] }[];
        total: number;
        next: string | null;
      };
    };

    const firstPage = await list("q=bulk&sort=name&dir=asc&size=50");
    expect(firstPage.total).toBe(300);
    expect(firstPage.rows).toHaveLength(50);
    expect(firstPage.rows[0]!.name).toBe("Bulk 000");
    const second = await list(`q=bulk&sort=name&dir=asc&size=50&after=${firstPage.next}`);
    const third = await list(`q=bulk&sort=name&dir=asc&size=50&after=${second.next}`);
    expect(third.rows[0]!.name).toBe("Bulk 100");

    expect((await list("q=bulk&status=disabled")).total).toBe(30);
    expect((await list("q=bulk&verified=yes")).total).toBe(150);
    const managers = await list("q=bulk&role=manager&size=100");
    expect(managers.total).toBe(100);
    expect(managers.rows.every((r) => r.roles.some((x) => x.name === "manager"))).toBe(true);
    expect((await list("q=BULK2")).total).toBe(111); // bulk2, bulk20-29, bulk200-299
    expect((await list("q=%25")).total).toBe(0); // a literal % matches nothing, not everything
    expect((await list("size=7&sort=nope&page=-4")).rows).toHaveLength(25); // bad params fall back
  });
});

describe("creating users", () => {
  it("refuses without user.write and writes nothing", async () => {
    const manager = await signedIn(["manager"]);
    const out = await onList(manager.cookie, {
      intent: "create",
      name: "X",
      email: "x-new@example.test",
      password: "a-long-password-1",
    });
    expect(out.status).toBe(403);
    expect(
      await db().selectFrom("user").select("id").where("email", "=", "x-new@example.test").execute(),
    ).toEqual([]);
  });

  it("validates fields and changes nothing", async () => {
    const admin = await signedIn(["admin"]);
    const out = await onList(admin.cookie, {
      intent: "create",
      name: "",
      email: "not-an-email",
      password: "short",
    });
    expect(out.status).toBe(400);
    expect(Object.keys((out.body as { errors: object }).errors).sort()).toEqual([
      "email",
      "name",
      "password",
    ]);
  });

  it("creates a verified user who must change the password, and audits it", async () => {
    const admin = await signedIn(["admin"]);
    const out = await onList(admin.cookie, {
      intent: "create",
      name: "New Person",
      email: "New.Person@Example.test",
      password: "a-long-password-1",
      roles: [await roleId("manager")],
    });
    expect(out.status).toBe(302);
    const user = await db()
      .selectFrom("user")
      .selectAll()
      .where("email", "=", "new.person@example.test")
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ email_verified: 1, must_change_password: 1 });
    expect(await rolesOf(user.id)).toEqual(["manager"]);
    const row = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "user.create")
      .where("target_id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(row.actor_id).toBe(admin.id);
    expect(row.details).not.toContain("a-long-password-1");
  });

  it("does not let an admin grant super_admin", async () => {
    const admin = await signedIn(["admin"]);
    const out = await onList(admin.cookie, {
      intent: "create",
      name: "Sneaky",
      email: "sneaky@example.test",
      password: "a-long-password-1",
      roles: [await roleId("super_admin")],
    });
    expect(out.status).toBe(403);
    expect(
      await db().selectFrom("user").select("id").where("email", "=", "sneaky@example.test").execute(),
    ).toEqual([]);
  });
});

describe("editing users", () => {
  it("needs user.update (manager has only user.read)", async () => {
    const manager = await signedIn(["manager"]);
    const target = await createUser({ roles: ["user"] });
    const out = await onUser(target.id, manager.cookie, {
      intent: "update",
      name: "Hacked",
      email: target.email,
      roles: [],
    });
    expect(out.status).toBe(403);
    expect(
      (await db().selectFrom("user").select("name").where("id", "=", target.id).executeTakeFirstOrThrow())
        .name,
    ).not.toBe("Hacked");
  });

  it("saves name, email and roles with a before/after audit row", async () => {
    const admin = await signedIn(["admin"]);
    const target = await createUser({ roles: ["user"], name: "Before" });
    const out = await onUser(target.id, admin.cookie, {
      intent: "update",
      name: "After",
      email: target.email,
      roles: [await roleId("manager")],
    });
    expect(out.status).toBe(302);
    expect(await rolesOf(target.id)).toEqual(["manager"]);
    const row = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "user.update")
      .where("target_id", "=", target.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.details!)).toMatchObject({ before: { name: "Before" }, after: { name: "After" } });
  });

  it("correcting the address spends the links mailed to the old one", async () => {
    const admin = await signedIn(["admin"]);
    const target = await createUser({ roles: ["user"] });
    const mailed = await Promise.all(
      (["set-password", "reset-password", "verify-email", "email-change"] as const).map((kind) =>
        issueToken({ kind, userId: target.id }),
      ),
    );
    const alert = await issueToken({ kind: "not-me", userId: target.id });
    const out = await onUser(target.id, admin.cookie, {
      intent: "update",
      name: target.name,
      email: `corrected-${randomUUID().slice(0, 8)}@example.test`,
      roles: [await roleId("user")],
    });
    expect(out.status).toBe(302);
    for (const raw of mailed)
      expect(await inspectToken([...MAILED], raw)).toMatchObject({ ok: false, reason: "used" });
    // Not a way in: "this was not me" after a sign-in only ends sessions.
    expect(await inspectToken(["not-me"], alert)).toMatchObject({ ok: true });
  });

  it("keeps the open links when the address stays", async () => {
    const admin = await signedIn(["admin"]);
    const target = await createUser({ roles: ["user"] });
    const raw = await issueToken({ kind: "set-password", userId: target.id });
    const out = await onUser(target.id, admin.cookie, {
      intent: "update",
      name: "Renamed",
      email: target.email,
      roles: [await roleId("user")],
    });
    expect(out.status).toBe(302);
    expect(await inspectToken(["set-password"], raw)).toMatchObject({ ok: true });
  });

  it("refuses granting a role whose permissions the actor lacks", async () => {
    const ts = now();
    const custom = randomUUID();
    await db()
      .insertInto("role")
      .values({ id: custom, name: "auditor", label: "Auditor", created_at: ts, updated_at: ts })
      .execute();
    const perm = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "=", "log.read")
      .executeTakeFirstOrThrow();
    await db().insertInto("role_permission").values({ role_id: custom, permission_id: perm.id }).execute();
    const { invalidateRoles } = await import("../access/role-cache.server");
    invalidateRoles();

    const userAdmin = await signedIn(["manager"]);
    // Give this manager user.update so only the escalation rule can refuse.
    const updRole = randomUUID();
    await db()
      .insertInto("role")
      .values({ id: updRole, name: "editor", label: "Editor", created_at: ts, updated_at: ts })
      .execute();
    const upd = await db()
      .selectFrom("permission")
      .select("id")
      .where("key", "=", "user.update")
      .executeTakeFirstOrThrow();
    await db().insertInto("role_permission").values({ role_id: updRole, permission_id: upd.id }).execute();
    await db().insertInto("user_role").values({ user_id: userAdmin.id, role_id: updRole }).execute();
    invalidateRoles();

    const target = await createUser({ roles: ["user"] });
    const out = await onUser(target.id, userAdmin.cookie, {
      intent: "update",
      name: "T",
      email: target.email,
      roles: [custom],
    });
    expect(out.status).toBe(403);
    expect((out.body as { formError: string }).formError).toMatch(/Auditor/);
    expect(await rolesOf(target.id)).toEqual(["user"]);
  });

  it("keeps the last super admin: no demotion, no disabling, no deletion", async () => {
    const rootUser = await db()
      .selectFrom("user")
      .select("id")
      .where("email", "=", "root@example.test")
      .executeTakeFirstOrThrow();
    // Other test super admins exist in this file? Remove them so root is the last one.
    const superRole = await roleId("super_admin");
    await db()
      .deleteFrom("user_role")
      .where("role_id", "=", superRole)
      .where("user_id", "!=", rootUser.id)
      .execute();
    const other = await signedIn(["super_admin"]);
    await db().deleteFrom("user_role").where("user_id", "=", other.id).execute();
    await db().insertInto("user_role").values({ user_id: other.id, role_id: superRole }).execute();
    // Now two super admins: other can demote root...
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", other.id).execute();
    // ...but with other disabled, root is the last active one.
    const admin = await signedIn(["admin"]);
    const cookieOfRoot = (await import("../../test/helpers")).sessionCookieFor(rootUser.id);
    const demote = await onUser(rootUser.id, await cookieOfRoot, {
      intent: "update",
      name: "Super Admin",
      email: "root@example.test",
      roles: [],
    });
    expect(demote.status).toBe(403);
    expect(await rolesOf(rootUser.id)).toEqual(["super_admin"]);

    const disable = await onUser(rootUser.id, admin.cookie, { intent: "disable" });
    expect(disable.status).toBe(403);
    const del = await onUser(rootUser.id, admin.cookie, { intent: "delete" });
    expect(del.status).toBe(403);
    expect(
      await db().selectFrom("user").select("status").where("id", "=", rootUser.id).executeTakeFirstOrThrow(),
    ).toEqual({ status: "active" });
  });

  it("stops people disabling or deleting themselves", async () => {
    const admin = await signedIn(["admin"]);
    expect((await onUser(admin.id, admin.cookie, { intent: "disable" })).status).toBe(403);
    expect((await onUser(admin.id, admin.cookie, { intent: "delete" })).status).toBe(403);
  });

  it("disabling ends the user's sessions at once", async () => {
    const admin = await signedIn(["admin"]);
    const target = await signedIn(["user"]);
    expect((await onUser(target.id, admin.cookie, { intent: "disable" })).status).toBe(302);
    expect(await db().selectFrom("session").select("id").where("user_id", "=", target.id).execute()).toEqual(
      [],
    );
    const audit = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "user.disable")
      .where("target_id", "=", target.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details!)).toEqual({
      before: { status: "active" },
      after: { status: "disabled" },
    });
  });

  it("deletes with user.delete only, and 404s for an unknown id", async () => {
    const manager = await signedIn(["manager"]);
    const admin = await signedIn(["admin"]);
    const target = await createUser({ roles: ["user"] });
    expect((await onUser(target.id, manager.cookie, { intent: "delete" })).status).toBe(403);
    expect((await onUser(target.id, admin.cookie, { intent: "delete" })).status).toBe(302);
    expect(await db().selectFrom("user").select("id").where("id", "=", target.id).execute()).toEqual([]);
    expect((await onUser(randomUUID(), admin.cookie, { intent: "delete" })).status).toBe(404);
    expect(
      (
        await run(() =>
          userLoader(args(request("/dashboard/users/nope", { cookie: admin.cookie }), { id: "nope" })),
        )
      ).status,
    ).toBe(404);
  });

  it("bulk-disables selected users but refuses the actor's own row", async () => {
    const admin = await signedIn(["admin"]);
    const a = await createUser({ roles: ["user"] });
    const b = await createUser({ roles: ["user"] });
    const out = await onList(admin.cookie, { intent: "bulk-disable", ids: [a.id, b.id, admin.id] });
    expect(out.status).toBe(302);
    const statuses = await db()
      .selectFrom("user")
      .select(["id", "status"])
      .where("id", "in", [a.id, b.id, admin.id])
      .execute();
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({
      [a.id]: "disabled",
      [b.id]: "disabled",
      [admin.id]: "active",
    });
  });

  it("revokes one session of a user", async () => {
    const admin = await signedIn(["admin"]);
    const target = await signedIn(["user"]);
    const session = await db()
      .selectFrom("session")
      .select("id")
      .where("user_id", "=", target.id)
      .executeTakeFirstOrThrow();
    const page = await run(() =>
      userLoader(args(request(`/dashboard/users/${target.id}`, { cookie: admin.cookie }), { id: target.id })),
    );
    const handle = (page.body as { sessions: { handle: string }[] }).sessions[0]!.handle;
    // The raw id is refused: only the handle the page shows names a session.
    expect(
      (await onUser(target.id, admin.cookie, { intent: "revoke-session", session: session.id })).status,
    ).toBe(404);
    expect(
      (await onUser(target.id, admin.cookie, { intent: "revoke-session", session: handle })).status,
    ).toBe(302);
    expect(await db().selectFrom("session").select("id").where("id", "=", session.id).execute()).toEqual([]);
    expect(
      (await onUser(target.id, admin.cookie, { intent: "revoke-session", session: handle })).status,
    ).toBe(404);
  });
});

describe("invitations and links from the users pages", () => {
  it("invites by email with user.write only, never above the inviter's roles", async () => {
    const manager = await signedIn(["manager"]);
    const admin = await signedIn(["admin"]);
    expect((await onList(manager.cookie, { intent: "invite", email: "invitee@example.test" })).status).toBe(
      403,
    );
    expect((await onList(admin.cookie, { intent: "invite", email: "nope" })).status).toBe(400);
    const superOut = await onList(admin.cookie, {
      intent: "invite",
      email: "boss@example.test",
      roles: [await roleId("super_admin")],
    });
    expect(superOut.status).toBe(403);
    const ok = await onList(admin.cookie, {
      intent: "invite",
      email: "Invitee@Example.test",
      roles: [await roleId("manager")],
    });
    // No mail provider here: made, and answered in place for the dialog to offer its link.
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, intent: "invite", unsent: { email: "invitee@example.test" } });
    const tokens = await db()
      .selectFrom("user_token")
      .select(["kind", "data"])
      .where("kind", "=", "invite")
      .execute();
    expect(tokens).toHaveLength(1);
    expect(JSON.parse(tokens[0]!.data!)).toMatchObject({ email: "invitee@example.test" });
  });

  it("sends a reset link (user.update) and resends verification only to the unverified", async () => {
    const manager = await signedIn(["manager"]);
    const admin = await signedIn(["admin"]);
    const target = await createUser({ roles: ["user"], verified: false });
    expect((await onUser(target.id, manager.cookie, { intent: "send-reset" })).status).toBe(403);
    expect((await onUser(target.id, admin.cookie, { intent: "send-reset" })).status).toBe(302);
    expect((await onUser(target.id, admin.cookie, { intent: "resend-verification" })).status).toBe(302);
    const kinds = await db()
      .selectFrom("user_token")
      .select("kind")
      .where("user_id", "=", target.id)
      .execute();
    expect(kinds.map((k) => k.kind).sort()).toEqual(["reset-password", "verify-email"]);
    const verified = await createUser({ roles: ["user"] });
    expect((await onUser(verified.id, admin.cookie, { intent: "resend-verification" })).status).toBe(400);
    const audit = await db()
      .selectFrom("audit_log")
      .select("actor_id")
      .where("action", "=", "user.password_reset")
      .executeTakeFirstOrThrow();
    expect(audit.actor_id).toBe(admin.id);
  });
});

describe("accounts that hold more than the actor", () => {
  it("an admin cannot change, disable, delete, reset or sign out a super admin", async () => {
    const admin = await signedIn(["admin"]);
    const boss = await signedIn(["super_admin"]);
    const handle = (
      (
        await run(() =>
          userLoader(args(request(`/dashboard/users/${boss.id}`, { cookie: admin.cookie }), { id: boss.id })),
        )
      ).body as { sessions: { handle: string }[] }
    ).sessions[0]!.handle;
    const attempts: Record<string, string>[] = [
      { intent: "update", name: "Owned", email: "attacker@example.test", roles: await roleId("super_admin") },
      { intent: "disable" },
      { intent: "delete" },
      { intent: "send-reset" },
      { intent: "revoke-session", session: handle },
    ];
    for (const values of attempts) {
      const out = await onUser(boss.id, admin.cookie, values);
      expect(out.status, values.intent).toBe(403);
    }
    const row = await db()
      .selectFrom("user")
      .select(["email", "status"])
      .where("id", "=", boss.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ email: boss.email, status: "active" });
    expect(
      await db().selectFrom("session").select("id").where("user_id", "=", boss.id).execute(),
    ).toHaveLength(1);
    expect(await db().selectFrom("user_token").select("id").where("user_id", "=", boss.id).execute()).toEqual(
      [],
    );
  });

  it("never sends raw session ids to the page", async () => {
    const admin = await signedIn(["admin"]);
    const target = await signedIn(["user"]);
    const sessionId = (
      await db().selectFrom("session").select("id").where("user_id", "=", target.id).executeTakeFirstOrThrow()
    ).id;
    const page = await run(() =>
      userLoader(args(request(`/dashboard/users/${target.id}`, { cookie: admin.cookie }), { id: target.id })),
    );
    expect(JSON.stringify(page.body)).not.toContain(sessionId);
  });

  it("searches % and _ literally", async () => {
    await createUser({ name: "Ratio 100%_done" });
    const viewer = await signedIn(["manager"]);
    const out = await run(() =>
      listLoader(
        args(request(`/dashboard/users?q=${encodeURIComponent("100%_")}`, { cookie: viewer.cookie })),
      ),
    );
    expect((out.body as { rows: { name: string }[] }).rows.map((r) => r.name)).toEqual(["Ratio 100%_done"]);
  });
});

describe("pending invitations", () => {
  it("lists, resends (new link, old one spent) and cancels, with user.write only", async () => {
    const admin = await signedIn(["admin"]);
    const manager = await signedIn(["manager"]);
    await onList(admin.cookie, {
      intent: "invite",
      email: "pending@example.test",
      roles: [await roleId("user")],
    });
    const listed = async () =>
      (
        (await run(() => listLoader(args(request("/dashboard/users", { cookie: admin.cookie }))))).body as {
          invitations: { id: string; email: string; roles: string[] }[];
        }
      ).invitations.filter((i) => i.email === "pending@example.test");
    const [first] = await listed();
    expect(first).toMatchObject({ email: "pending@example.test", roles: ["User"] });

    expect((await onList(manager.cookie, { intent: "resend-invite", invitationId: first!.id })).status).toBe(
      403,
    );
    expect((await onList(admin.cookie, { intent: "resend-invite", invitationId: first!.id })).status).toBe(
      302,
    );
    const afterResend = await listed();
    expect(afterResend).toHaveLength(1);
    expect(afterResend[0]!.id).not.toBe(first!.id);
    const old = await db()
      .selectFrom("user_token")
      .select("used_at")
      .where("id", "=", first!.id)
      .executeTakeFirstOrThrow();
    expect(old.used_at).not.toBeNull();

    expect(
      (await onList(admin.cookie, { intent: "cancel-invite", invitationId: afterResend[0]!.id })).status,
    ).toBe(302);
    expect(await listed()).toEqual([]);
    expect(
      (await onList(admin.cookie, { intent: "cancel-invite", invitationId: afterResend[0]!.id })).status,
    ).toBe(404);
    expect((await onList(admin.cookie, { intent: "resend-invite", invitationId: "nope" })).status).toBe(404);
  });
});

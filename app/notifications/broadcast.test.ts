import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { listen, postBroadcast, roleId } from "../../test/support/broadcast";
import { formRequest } from "../../test/support/forms";
import { RecordingRunner } from "../../test/tasks";
import { db, now } from "../db.server";
import { action as notificationsAction, loader as notificationsLoader } from "../routes/api.notifications";
import { loader } from "../routes/dashboard.broadcast";
import { broadcastEmail } from "../tasks/definitions/broadcast-email.server";
import { setTaskRunner } from "../tasks/runner.server";

const mail = withFakePostmark();
const runner = new RecordingRunner();
beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(runner);
});

describe("broadcast", () => {
  it("needs settings.manage to view and to send", async () => {
    const manager = await signedIn(["manager"]);
    expect(
      (await run(() => loader(args(request("/dashboard/broadcast", { cookie: manager.cookie }))))).status,
    ).toBe(403);
    expect(
      (await postBroadcast(manager.cookie, { title: "t", message: "m", level: "info", audience: "all" }))
        .status,
    ).toBe(403);
    expect(await db().selectFrom("broadcast").select("id").execute()).toEqual([]);
  });

  it("validates the notice and changes nothing", async () => {
    const admin = await signedIn(["admin"]);
    const out = await postBroadcast(admin.cookie, {
      title: "",
      message: "",
      level: "loud",
      link: "javascript:alert(1)",
      audience: "roles",
    });
    expect(out.status).toBe(400);
    expect(Object.keys((out.body as { errors: object }).errors).sort()).toEqual([
      "audience",
      "level",
      "link",
      "message",
      "title",
    ]);
    expect(await db().selectFrom("broadcast").select("id").execute()).toEqual([]);
  });

  it("accepts only same-origin paths (the redirectTo rule), never another host; nothing stored otherwise", async () => {
    const admin = await signedIn(["admin"]);
    for (const link of [
      "/\\evil.example/x",
      "//evil.example/x",
      "/\\/evil.example",
      "/.//evil.example",
      "http://evil.example",
      // A broadcast must not send its readers (super admins too) to another site (docs/rules.md).
      "https://evil.example/login",
    ]) {
      const out = await postBroadcast(admin.cookie, {
        title: "Hi",
        message: "Read this",
        level: "info",
        link,
        audience: "all",
      });
      expect(out.status, link).toBe(400);
      expect(Object.keys((out.body as { errors: object }).errors)).toEqual(["link"]);
    }
    expect(await db().selectFrom("broadcast").select("id").execute()).toEqual([]);
  });

  it("delivers live to the chosen role only, keeps notifications, and audits", async () => {
    const admin = await signedIn(["admin"]);
    const managerA = await createUser({ roles: ["manager"] });
    const disabledManager = await createUser({ roles: ["manager"], status: "disabled" });
    const plain = await createUser({ roles: ["user"] });
    const bus = listen([managerA.id, plain.id, disabledManager.id]);
    const out = await postBroadcast(admin.cookie, {
      title: "Maintenance",
      message: "Tonight at 22:00",
      level: "warning",
      link: "/dashboard",
      audience: "roles",
      roleIds: [await roleId("manager")],
    });
    bus.stop();
    expect(out.status).toBe(302);
    expect(bus.seen[managerA.id]).toEqual([
      expect.objectContaining({
        type: "broadcast",
        title: "Maintenance",
        level: "warning",
        link: "/dashboard",
      }),
    ]);
    expect(bus.seen[plain.id]).toEqual([]);
    expect(bus.seen[disabledManager.id]).toEqual([]);
    const notes = await db().selectFrom("notification").select("user_id").execute();
    expect(notes.map((n) => n.user_id)).toContain(managerA.id);
    expect(notes.map((n) => n.user_id)).not.toContain(plain.id);
    const row = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "broadcast.send")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.details!)).toMatchObject({ audience: "Roles: Manager", level: "warning" });
  });

  it("reaches team members and everyone", async () => {
    const admin = await signedIn(["admin"]);
    const ts = now();
    const team = randomUUID();
    await db()
      .insertInto("team")
      .values({ id: team, name: "Ops", description: "", created_at: ts, updated_at: ts })
      .execute();
    const member = await createUser({ roles: ["user"] });
    await db()
      .insertInto("team_member")
      .values({ team_id: team, user_id: member.id, team_role: "member", created_at: ts })
      .execute();
    await postBroadcast(admin.cookie, {
      title: "Team note",
      message: "Hi team",
      level: "info",
      audience: "teams",
      teamIds: [team],
    });
    const teamNote = await db()
      .selectFrom("broadcast")
      .select("recipient_count")
      .where("title", "=", "Team note")
      .executeTakeFirstOrThrow();
    expect(teamNote.recipient_count).toBe(1);

    await postBroadcast(admin.cookie, {
      title: "All hands",
      message: "Hello all",
      level: "success",
      audience: "all",
    });
    const active = await db()
      .selectFrom("user")
      .select("id")
      .where("status", "=", "active")
      .where("email_verified", "=", 1)
      .execute();
    const all = await db()
      .selectFrom("broadcast")
      .select("recipient_count")
      .where("title", "=", "All hands")
      .executeTakeFirstOrThrow();
    expect(all.recipient_count).toBe(active.length);
  });

  it("lets each person read and mark only their own notifications", async () => {
    const admin = await signedIn(["admin"]);
    const reader = await signedIn(["user"]);
    const other = await signedIn(["user"]);
    await postBroadcast(admin.cookie, {
      title: "Read me",
      message: "Please",
      level: "info",
      audience: "all",
    });
    const list = await run(() =>
      notificationsLoader(args(request("/api/notifications", { cookie: reader.cookie }))),
    );
    const body = list.body as { notifications: { id: string; title: string }[]; unread: number };
    expect(body.notifications[0]!.title).toBe("Read me");
    expect(body.unread).toBe(1);

    const mark = (cookie: string | undefined, values: Record<string, string>) =>
      run(() => notificationsAction(args(formRequest("/api/notifications", values, { cookie }))));
    expect((await mark(undefined, { intent: "read-all" })).status).toBe(401);
    expect((await mark(other.cookie, { intent: "read", id: body.notifications[0]!.id })).status).toBe(404);
    expect((await mark(reader.cookie, { intent: "read", id: "not-a-uuid" })).status).toBe(400);
    expect(await mark(reader.cookie, { intent: "read", id: body.notifications[0]!.id })).toMatchObject({
      status: 200,
      body: { ok: true, unread: 0 },
    });
    const history = await run(() => loader(args(request("/dashboard/broadcast", { cookie: admin.cookie }))));
    const readMe = (history.body as { history: { title: string; reads: number }[] }).history.find(
      (h) => h.title === "Read me",
    );
    expect(readMe!.reads).toBe(1);
  });

  it("emails every recipient once through the background task", async () => {
    const admin = await signedIn(["admin"]);
    const team = randomUUID();
    const ts = now();
    await db()
      .insertInto("team")
      .values({ id: team, name: "Mailers", description: "", created_at: ts, updated_at: ts })
      .execute();
    const a = await createUser({ roles: ["user"] });
    const b = await createUser({ roles: ["user"] });
    for (const u of [a, b])
      await db()
        .insertInto("team_member")
        .values({ team_id: team, user_id: u.id, team_role: "member", created_at: ts })
        .execute();
    await postBroadcast(admin.cookie, {
      title: "Mail me",
      message: "By email too",
      level: "info",
      audience: "teams",
      teamIds: [team],
      email: "on",
    });
    const broadcast = await db()
      .selectFrom("broadcast")
      .selectAll()
      .where("title", "=", "Mail me")
      .executeTakeFirstOrThrow();
    expect(broadcast.email_status).toBe("pending");
    // The action queued a broadcast.email task; run its work here instead of through a live runner.
    const queued = await db()
      .selectFrom("task")
      .select(["id", "type", "payload"])
      .where("id", "in", runner.dispatched)
      .execute();
    expect(queued.map((t) => [t.type, JSON.parse(t.payload!)])).toContainEqual([
      "broadcast.email",
      { broadcastId: broadcast.id },
    ]);
    mail.fake.clear();
    const progress: number[] = [];
    const result = await broadcastEmail.run(
      { broadcastId: broadcast.id },
      {
        taskId: randomUUID(),
        userId: admin.id,
        signal: new AbortController().signal,
        progress: (p) => progress.push(p),
      },
    );
    expect(result).toEqual({ sent: 2, failed: 0, recipients: 2 });
    expect(mail.fake.messages.map((m) => m.To).sort()).toEqual([a.email, b.email].sort());
    // Never the system's own notice: the subject and the first line name the writer and their address.
    for (const m of mail.fake.messages) {
      expect(m.Subject).toBe(`Broadcast from ${admin.name}: Mail me`);
      expect(m.TextBody).toContain(`${admin.name} (${admin.email}) sent this broadcast to you`);
      expect(m.TextBody).toContain("By email too");
    }
    expect(progress.at(-1)).toBe(1);
    const after = await db()
      .selectFrom("broadcast")
      .selectAll()
      .where("id", "=", broadcast.id)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ email_status: "done", emails_sent: 2 });
    await expect(
      broadcastEmail.run(
        { broadcastId: broadcast.id },
        { taskId: randomUUID(), userId: admin.id, signal: new AbortController().signal, progress: () => {} },
      ),
    ).rejects.toThrow(/already sent/);
  });
});

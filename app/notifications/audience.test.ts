import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { listen, postBroadcast, roleId } from "../../test/support/broadcast";
import { RecordingRunner } from "../../test/tasks";
import { db, now } from "../db.server";
import { loader } from "../routes/dashboard.broadcast";
import { broadcastEmail } from "../tasks/definitions/broadcast-email.server";
import { setTaskRunner } from "../tasks/runner.server";
import type { AudienceCount } from "./audience.server";

// Whom a broadcast reaches (app/notifications/audience.server.ts; docs/rules.md, "Broadcast"):
// enabled accounts with a verified address only, in the bell, live and by email, and the count the
// composer shows is that same set.

const mail = withFakePostmark();
beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(new RecordingRunner());
});

describe("broadcast audience", () => {
  it("reaches verified, enabled accounts only: every audience, in the bell, live and by email, and the count says so", async () => {
    const admin = await signedIn(["admin"]);
    const ts = now();
    const team = randomUUID();
    await db()
      .insertInto("team")
      .values({ id: team, name: "Mixed", description: "", created_at: ts, updated_at: ts })
      .execute();
    const verified = await createUser({ roles: ["manager"] });
    // A self-registration that never confirmed its address, and a disabled account.
    const unverified = await createUser({ roles: ["manager"], verified: false });
    const disabled = await createUser({ roles: ["manager"], status: "disabled" });
    for (const u of [verified, unverified, disabled])
      await db()
        .insertInto("team_member")
        .values({ team_id: team, user_id: u.id, team_role: "member", created_at: ts })
        .execute();
    const manager = await roleId("manager");
    const audiences: Record<string, Record<string, string | string[]>> = {
      all: { audience: "all" },
      roles: { audience: "roles", roleIds: [manager] },
      teams: { audience: "teams", teamIds: [team] },
    };
    const reachable = async (kind: string) => {
      let q = db()
        .selectFrom("user")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("status", "=", "active")
        .where("email_verified", "=", 1);
      if (kind === "roles")
        q = q.where(
          "id",
          "in",
          db().selectFrom("user_role").select("user_id").where("role_id", "=", manager),
        );
      if (kind === "teams")
        q = q.where("id", "in", db().selectFrom("team_member").select("user_id").where("team_id", "=", team));
      return Number((await q.executeTakeFirstOrThrow()).n);
    };
    for (const [kind, audience] of Object.entries(audiences)) {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(audience)) for (const x of [v].flat()) query.append(k, x);
      const counted = await run(() =>
        loader(args(request(`/dashboard/broadcast?${query}`, { cookie: admin.cookie }))),
      );
      const shown = (counted.body as { audienceSize: { reached: number } }).audienceSize.reached;
      expect(shown, kind).toBe(await reachable(kind));
      if (kind === "teams") expect(shown).toBe(1);

      const bus = listen([verified.id, unverified.id, disabled.id]);
      const title = `Only verified ${kind}`;
      const out = await postBroadcast(admin.cookie, {
        title,
        message: "m",
        level: "info",
        email: "on",
        ...audience,
      });
      bus.stop();
      expect(out.status, kind).toBe(302);
      expect(bus.seen[verified.id]!.length, kind).toBe(1);
      expect(bus.seen[unverified.id], kind).toEqual([]);
      expect(bus.seen[disabled.id], kind).toEqual([]);
      const broadcast = await db()
        .selectFrom("broadcast")
        .select(["id", "recipient_count"])
        .where("title", "=", title)
        .executeTakeFirstOrThrow();
      expect(broadcast.recipient_count, kind).toBe(shown);
      const notified = await db()
        .selectFrom("notification")
        .select("user_id")
        .where("broadcast_id", "=", broadcast.id)
        .execute();
      expect(notified.length, kind).toBe(shown);
      expect(
        notified.map((n) => n.user_id),
        kind,
      ).toContain(verified.id);
      expect(
        notified.map((n) => n.user_id),
        kind,
      ).not.toContain(unverified.id);
      expect(
        notified.map((n) => n.user_id),
        kind,
      ).not.toContain(disabled.id);

      mail.fake.clear();
      await broadcastEmail.run(
        { broadcastId: broadcast.id },
        { taskId: randomUUID(), userId: admin.id, signal: new AbortController().signal, progress: () => {} },
      );
      const to = mail.fake.messages.map((m) => m.To);
      expect(to, kind).toContain(verified.email);
      expect(to, kind).not.toContain(unverified.email);
      expect(to, kind).not.toContain(disabled.email);
      expect(to.length, kind).toBe(shown);
    }
  });

  it("does not email a recipient whose account was disabled or lost its verification after the notice went out", async () => {
    const admin = await signedIn(["admin"]);
    const ts = now();
    const team = randomUUID();
    await db()
      .insertInto("team")
      .values({ id: team, name: "Later", description: "", created_at: ts, updated_at: ts })
      .execute();
    const [stays, disabledLater, unverifiedLater] = [
      await createUser({ roles: ["user"] }),
      await createUser({ roles: ["user"] }),
      await createUser({ roles: ["user"] }),
    ];
    for (const u of [stays, disabledLater, unverifiedLater])
      await db()
        .insertInto("team_member")
        .values({ team_id: team, user_id: u.id, team_role: "member", created_at: ts })
        .execute();
    await postBroadcast(admin.cookie, {
      title: "Later mail",
      message: "m",
      level: "info",
      audience: "teams",
      teamIds: [team],
      email: "on",
    });
    const broadcast = await db()
      .selectFrom("broadcast")
      .select("id")
      .where("title", "=", "Later mail")
      .executeTakeFirstOrThrow();
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", disabledLater.id).execute();
    // An address change makes the account unverified until the new address is confirmed.
    await db().updateTable("user").set({ email_verified: 0 }).where("id", "=", unverifiedLater.id).execute();
    mail.fake.clear();
    const result = await broadcastEmail.run(
      { broadcastId: broadcast.id },
      { taskId: randomUUID(), userId: admin.id, signal: new AbortController().signal, progress: () => {} },
    );
    expect(mail.fake.messages.map((m) => m.To)).toEqual([stays.email]);
    expect(result).toEqual({ sent: 1, failed: 0, recipients: 1 });
  });

  it("tells the composer how many active, verified people an audience reaches, before anything is sent", async () => {
    const admin = await signedIn(["admin"]);
    const manager = await roleId("manager");
    const size = async (query: string) => {
      const out = await run(() =>
        loader(args(request(`/dashboard/broadcast?${query}`, { cookie: admin.cookie }))),
      );
      expect(out.status).toBe(200);
      return (out.body as { audienceSize: AudienceCount | null }).audienceSize?.reached ?? null;
    };
    const counts = async (query: string) =>
      (
        (await run(() => loader(args(request(`/dashboard/broadcast?${query}`, { cookie: admin.cookie })))))
          .body as { audienceSize: AudienceCount }
      ).audienceSize;
    const managers = `audience=roles&roleIds=${manager}`;
    const before = await counts(managers);
    await createUser({ roles: ["manager"] });
    await createUser({ roles: ["manager", "user"] });
    const off = await createUser({ roles: ["manager"] });
    await db().updateTable("user").set({ status: "disabled" }).where("id", "=", off.id).execute();
    const pending = await createUser({ roles: ["manager"] });
    await db().updateTable("user").set({ email_verified: 0 }).where("id", "=", pending.id).execute();
    expect(await size(managers)).toBe(before.reached + 2);
    // Of how many, and why the others are left out ("494 of 693 (199 unverified)").
    expect(await counts(managers)).toEqual({
      reached: before.reached + 2,
      members: before.members + 4,
      unverified: before.unverified + 1,
      disabled: before.disabled + 1,
    });
    const active = await db()
      .selectFrom("user")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "active")
      .where("email_verified", "=", 1)
      .executeTakeFirstOrThrow();
    expect(await size("audience=all")).toBe(Number(active.n));
    // Nothing asked, or an audience that names nothing valid: no count.
    expect(await size("")).toBeNull();
    expect(await size("audience=roles")).toBeNull();
    expect(await size("audience=teams&teamIds=nope")).toBeNull();
    expect(
      await db().selectFrom("broadcast").select("id").where("created_by", "=", admin.id).execute(),
    ).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { context, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { createTeam } from "../../test/support/teams";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { tFor } from "../i18n/i18n.server";
import { runDailyCleanup, runHourly } from "../server/cleanup.server";
import { profileData } from "../settings/account-settings.server";

// Time-bound grants (issue "Access that expires"): from expires_at on they give nothing (decide.ts,
// tested in grants-api.test.ts); the daily cleanup removes them with an audit row each, and the
// hourly job tells each holder once, a day ahead, in the app and by email, in their language.

const postmark = withFakePostmark();
beforeAll(setupDatabase);

const HOUR = 3_600_000;
const inHours = (h: number) => new Date(Date.now() + h * HOUR).toISOString();

async function grant(userId: string, role: string, expiresAt: string | null, teamId: string | null = null) {
  const { id: roleId } = await db()
    .selectFrom("role")
    .select("id")
    .where("name", "=", role)
    .executeTakeFirstOrThrow();
  await db()
    .insertInto("user_role")
    .values({ user_id: userId, role_id: roleId, team_id: teamId, expires_at: expiresAt })
    .execute();
}

const grantsOf = (userId: string) =>
  db()
    .selectFrom("user_role")
    .select(["expires_at", "expiry_noticed_at"])
    .where("user_id", "=", userId)
    .execute();

describe("the daily cleanup", () => {
  it("removes ended grants with a role.expired audit row each, once, and leaves live ones", async () => {
    const ended = await createUser({ roles: ["user"] });
    await grant(ended.id, "manager", inHours(-0.01));
    const team = await createTeam(db(), "Expiry team", [ended.id]);
    await grant(ended.id, "admin", inHours(-1), team);
    const live = await createUser({ roles: [] });
    await grant(live.id, "manager", inHours(30));

    const first = await runDailyCleanup();
    expect(first.grants).toBe(2);
    // Only the open-ended "user" grant is left of the first person's three.
    expect(await grantsOf(ended.id)).toEqual([{ expires_at: null, expiry_noticed_at: null }]);
    expect(await grantsOf(live.id)).toHaveLength(1);
    const rows = await db()
      .selectFrom("audit_log")
      .select(["target_id", "details", "actor_id"])
      .where("action", "=", "role.expired")
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.target_id === ended.id && r.actor_id === null)).toBe(true);
    expect(rows.map((r) => JSON.parse(r.details ?? "{}").role).sort()).toEqual(["admin", "manager"]);
    expect(JSON.parse(rows.find((r) => r.details?.includes("admin"))!.details!)).toMatchObject({
      team: { id: team, name: "Expiry team" },
      reason: "expired",
    });

    expect((await runDailyCleanup()).grants).toBe(0);
    expect(
      await db().selectFrom("audit_log").select("id").where("action", "=", "role.expired").execute(),
    ).toHaveLength(2);
  });
});

describe("the ending notice", () => {
  it("tells each active holder once, a day ahead, in their language, in the app and by email", async () => {
    const german = await createUser({ roles: [], email: "deutsch@example.test" });
    await db().updateTable("user").set({ locale: "de" }).where("id", "=", german.id).execute();
    await grant(german.id, "manager", inHours(12));
    const lead = await createUser({ roles: [], email: "lead@example.test" });
    const team = await createTeam(db(), "Night shift", [lead.id]);
    await grant(lead.id, "admin", inHours(2), team);
    const later = await createUser({ roles: [], email: "later@example.test" });
    await grant(later.id, "manager", inHours(72));
    const disabled = await createUser({ roles: [], email: "disabled@example.test", status: "disabled" });
    await grant(disabled.id, "manager", inHours(6));

    expect((await runHourly()).expiryNotices).toBe(2);
    const notices = await db()
      .selectFrom("notification")
      .select(["user_id", "kind", "title", "message", "link"])
      .where("user_id", "in", [german.id, lead.id, later.id, disabled.id])
      .execute();
    expect(notices.map((n) => n.user_id).sort()).toEqual([german.id, lead.id].sort());
    const de = notices.find((n) => n.user_id === german.id)!;
    expect(de).toMatchObject({ kind: "security", link: "/dashboard/settings/profile#access" });
    // The role as German readers know it ("Manager" is seeded; its German label is the roles file's).
    expect(de.title).toBe(`Ihre Rolle ${tFor("de")("roles:manager")} endet innerhalb eines Tages`);
    expect(notices.find((n) => n.user_id === lead.id)!.message).toContain("Night shift");
    const mailed = postmark.fake.messages.map((m) => m.To);
    expect(mailed).toEqual(expect.arrayContaining(["deutsch@example.test", "lead@example.test"]));
    expect(mailed).not.toContain("later@example.test");
    expect(mailed).not.toContain("disabled@example.test");
    expect((await grantsOf(german.id))[0]!.expiry_noticed_at).not.toBeNull();
    // A disabled account's grant is left untold, so it hears once enabled again within the day.
    expect((await grantsOf(disabled.id))[0]!.expiry_noticed_at).toBeNull();

    // Told once: the next hour's run finds nothing new, nor does another instance's.
    expect((await runHourly()).expiryNotices).toBe(0);
    expect(postmark.fake.messages.filter((m) => m.To === "deutsch@example.test")).toHaveLength(1);
  });

  it("leads to the holder's own list of roles with their end dates", async () => {
    const holder = await createUser({ roles: ["user"] });
    const ends = inHours(20);
    await grant(holder.id, "manager", ends);
    await grant(holder.id, "admin", inHours(-1));
    const cookie = await sessionCookieFor(holder.id);
    const me = (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))!;
    const { access } = await profileData(me);
    // The ended grant is not shown: it gives nothing, whether or not the cleanup has run.
    expect(access.map((g) => [g.role.name, g.team, g.expiresAt]).sort()).toEqual([
      ["manager", null, ends],
      ["user", null, null],
    ]);
  });
});

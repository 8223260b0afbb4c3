import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
import { loader as listLoader } from "../routes/dashboard.users/route";
import { loader as overviewLoader } from "../routes/dashboard-home/route";
import { createdSince, parseUserListQuery } from "./list.server";

// `?created=7d` on the users list: the people the overview counts as "new this week" (the last
// 7 UTC days, today included), so its link opens exactly those.

beforeAll(setupDatabase);

const DAY = 86_400_000;
const parse = (qs: string) => parseUserListQuery(new URL(`http://localhost/dashboard/users?${qs}`));

describe("the created filter's input", () => {
  it("keeps 7d and drops anything else, as every odd parameter of this list", () => {
    expect(parse("created=7d").created).toBe("7d");
    for (const bad of ["7D", "8d", "7", "-7d", "7d%00", "7d&created=30d", "", "%27%20or%201=1"])
      expect(parse(`created=${bad}`).created, bad).toBe("");
  });

  it("starts at 00:00 UTC six days before today, whatever the hour", () => {
    expect(createdSince("7d", new Date("2026-03-10T00:00:00.000Z"))).toBe("2026-03-04T00:00:00.000Z");
    expect(createdSince("7d", new Date("2026-03-10T23:59:59.999Z"))).toBe("2026-03-04T00:00:00.000Z");
    expect(createdSince("7d", new Date("2026-03-01T12:00:00.000Z"))).toBe("2026-02-23T00:00:00.000Z");
  });
});

describe("the users list with created=7d", () => {
  async function joined(name: string, at: Date, status: "active" | "disabled" = "active") {
    const user = await createUser({ name, roles: ["user"], status });
    await db().updateTable("user").set({ created_at: at.toISOString() }).where("id", "=", user.id).execute();
    return user.id;
  }

  it("lists those who joined in the overview's week, agreeing with its count, alone or with other filters", async () => {
    const start = Date.parse(createdSince("7d"));
    const today = await joined("Created Today", new Date());
    const edge = await joined("Created Week Start", new Date(start));
    const disabled = await joined("Created Recent Disabled", new Date(start + DAY), "disabled");
    const before = await joined("Created Just Before", new Date(start - 1));
    const old = await joined("Created Long Ago", new Date(start - 30 * DAY));
    // Everyone else in this file's database is older than the week.
    await db()
      .updateTable("user")
      .set({ created_at: new Date(start - 60 * DAY).toISOString() })
      .where("id", "not in", [today, edge, disabled, before, old])
      .execute();

    const admin = await signedIn(["admin"]);
    await db()
      .updateTable("user")
      .set({ created_at: new Date(start - 60 * DAY).toISOString() })
      .where("id", "=", admin.id)
      .execute();
    const list = async (qs: string) => {
      const out = await run(() =>
        listLoader(args(request(`/dashboard/users?${qs}`, { cookie: admin.cookie }))),
      );
      expect(out.status).toBe(200);
      return out.body as { rows: { id: string }[]; total: number; query: { created: string } };
    };
    const week = await list("created=7d");
    expect(week.query.created).toBe("7d");
    expect(new Set(week.rows.map((r) => r.id))).toEqual(new Set([today, edge, disabled]));
    expect(week.total).toBe(3);
    expect((await list("created=7d&status=disabled")).rows.map((r) => r.id)).toEqual([disabled]);
    expect((await list("created=7d&q=Created%20Today")).rows.map((r) => r.id)).toEqual([today]);
    expect((await list("created=7d&sort=name&dir=asc")).rows.map((r) => r.id)).toEqual([
      disabled,
      today,
      edge,
    ]);
    // A bad value is no filter: everyone.
    expect((await list("created=week")).total).toBeGreaterThan(3);

    const overview = await run(() => overviewLoader(args(request("/dashboard", { cookie: admin.cookie }))));
    expect((overview.body as { users: { newThisWeek: number } }).users.newThisWeek).toBe(week.total);
  });
});

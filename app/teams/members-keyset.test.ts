import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db, now } from "../db.server";
import { loader as listLoader } from "../routes/dashboard.teams";
import { loader } from "../routes/dashboard.teams.$id/route";
import { getTeam, listTeams } from "./teams.server";

// A team may hold everyone: its members come a page at a time by name (ties by id), walked both
// ways in the full order, with the exact count the triggers keep (migration 012); the teams list
// is paged the same way and reads the same counters.

const MEMBERS = 1020;

let big = "";
let small = "";

async function team(name: string) {
  const id = randomUUID();
  await db()
    .insertInto("team")
    .values({ id, name, description: "", created_at: now(), updated_at: now() })
    .execute();
  return id;
}

beforeAll(async () => {
  await setupDatabase();
  big = await team("Everyone");
  small = await team("Few");
  const users = Array.from({ length: MEMBERS }, (_, i) => ({
    id: randomUUID(),
    name: ["Ann", "Bob", "ann", "Cy"][i % 4]!,
    email: `m${i}@members.test`,
    created_at: now(),
    updated_at: now(),
  }));
  for (let i = 0; i < users.length; i += 200)
    await db()
      .insertInto("user")
      .values(users.slice(i, i + 200))
      .execute();
  const link = (teamId: string, userId: string) => ({
    team_id: teamId,
    user_id: userId,
    team_role: "member" as const,
    created_at: now(),
  });
  for (let i = 0; i < users.length; i += 200)
    await db()
      .insertInto("team_member")
      .values(users.slice(i, i + 200).map((u) => link(big, u.id)))
      .execute();
  await db()
    .insertInto("team_member")
    .values(users.slice(0, 3).map((u) => link(small, u.id)))
    .execute();
});

describe("team members", () => {
  it("walk forward and back by name in the full order, with the exact count", async () => {
    const expected = await db()
      .selectFrom("team_member")
      .innerJoin("user", "user.id", "team_member.user_id")
      .select("user.id")
      .where("team_id", "=", big)
      .orderBy("user.name")
      .orderBy("user.id")
      .execute();
    const pages: string[][] = [];
    let t = (await getTeam(big))!;
    expect(t.memberCount).toBe(MEMBERS);
    pages.push(t.members.map((m) => m.id));
    while (t.membersPage.next && pages.length < 100) {
      t = (await getTeam(big, { after: t.membersPage.next }))!;
      pages.push(t.members.map((m) => m.id));
    }
    expect(pages.flat()).toEqual(expected.map((r) => r.id));
    const back = [pages.at(-1)!];
    while (t.membersPage.prev && back.length < 100) {
      t = (await getTeam(big, { before: t.membersPage.prev }))!;
      back.unshift(t.members.map((m) => m.id));
    }
    expect(back).toEqual(pages);
  });

  it("the teams list shows each team's exact member count", async () => {
    const { teams, total } = await listTeams();
    expect(teams.map((t) => [t.name, t.members])).toEqual([
      ["Everyone", MEMBERS],
      ["Few", 3],
    ]);
    expect(total).toBe(2);
    expect((await getTeam(small))?.memberCount).toBe(3);
  });

  it("the teams list walks forward and back by name, 50 a page, with the total", async () => {
    const names = Array.from({ length: 120 }, (_, i) => `Paged ${String(i).padStart(3, "0")}`);
    const added = await Promise.all(names.map((n) => team(n)));
    try {
      const expected = (await db().selectFrom("team").select("name").orderBy("name").execute()).map(
        (r) => r.name,
      );
      const reader = await signedIn(["manager"]);
      type Body = {
        teams: { name: string }[];
        page: { next: string | null; prev: string | null };
        total: number;
      };
      const open = async (qs = "") =>
        (await run(() => listLoader(args(request(`/dashboard/teams?${qs}`, { cookie: reader.cookie })))))
          .body as Body;
      let page = await open();
      expect(page.total).toBe(expected.length);
      const pages = [page.teams.map((t) => t.name)];
      while (page.page.next && pages.length < 10) {
        page = await open(`after=${page.page.next}`);
        pages.push(page.teams.map((t) => t.name));
      }
      expect(pages.map((p) => p.length)).toEqual([50, 50, 22]);
      expect(pages.flat()).toEqual(expected);
      page = await open(`before=${page.page.prev}`);
      expect(page.teams.map((t) => t.name)).toEqual(pages[1]);
      // A tampered cursor opens the first page.
      expect((await open("after=zzz")).teams.map((t) => t.name)).toEqual(pages[0]);
    } finally {
      await db().deleteFrom("team").where("id", "in", added).execute();
    }
  });

  it("a member's rename moves them in the team's name order (the copied name follows)", async () => {
    const first = (await getTeam(small))!.members;
    const last = first.at(-1)!;
    await db().updateTable("user").set({ name: "Aaron First" }).where("id", "=", last.id).execute();
    try {
      const after = (await getTeam(small))!.members;
      expect(after[0]).toMatchObject({ id: last.id, name: "Aaron First" });
      const stale = await db()
        .selectFrom("team_member")
        .innerJoin("user", "user.id", "team_member.user_id")
        .select("user.id")
        .whereRef("team_member.member_name", "!=", "user.name")
        .execute();
      expect(stale).toEqual([]);
    } finally {
      await db().updateTable("user").set({ name: last.name }).where("id", "=", last.id).execute();
    }
  });

  it("a tampered cursor opens the first page", async () => {
    const reader = await signedIn(["manager"]);
    const open = async (qs: string) => {
      const out = await run(() =>
        loader(args(request(`/dashboard/teams/${big}?${qs}`, { cookie: reader.cookie }), { id: big })),
      );
      expect(out.status, qs).toBe(200);
      return (out.body as { team: { members: { id: string }[] } }).team.members.map((m) => m.id);
    };
    const first = await open("");
    const forged = Buffer.from(JSON.stringify({ k: "name.asc", v: 7, id: "x", n: 1 })).toString("base64url");
    for (const qs of ["after=zzz", `after=${forged}`, `before=${forged}`, "after=%00"])
      expect(await open(qs)).toEqual(first);
  });

  it("reads index ranges: the list's counts and a page of members", async () => {
    const list = await plansOf(db(), () => listTeams());
    expect(badPlans(list.plans)).toEqual([]);
    // No statement counts members: the counts are stat_count rows (migration 012).
    for (const { sql } of [...list.plans, ...(await plansOf(db(), () => getTeam(big))).plans])
      expect(sql).not.toMatch(/count\(/i);
    for (const id of [big, small]) {
      const { plans, result } = await plansOf(db(), () => getTeam(id));
      // A page of a team by name, large or small: one range of team_member_team_name_idx, no sort.
      expect(badPlans(plans)).toEqual([]);
      const page = plans.find((p) => p.sql.includes("member_name"))!;
      expect(page.text).toMatch(/team_member_team_name_idx/);
      if (result?.membersPage.next) {
        const next = await plansOf(db(), () => getTeam(id, { after: result.membersPage.next! }));
        expect(badPlans(next.plans)).toEqual([]);
      }
    }
  });
});

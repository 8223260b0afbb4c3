import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { db, now } from "../db.server";
import { loader } from "../routes/dashboard.teams.$id";
import { getTeam, listTeams, MEMBER_COUNT_CAP } from "./teams.server";

// A team may hold everyone: its members come a page at a time by name (ties by id), walked both
// ways in the full order, with a capped count; the teams list counts members the same capped way.

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
  const users = Array.from({ length: MEMBER_COUNT_CAP + 20 }, (_, i) => ({
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
  it("walk forward and back by name in the full order, with a capped count", async () => {
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
    expect(t.memberCount).toEqual({ count: MEMBER_COUNT_CAP, capped: true });
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

  it("the teams list counts members up to the cap", async () => {
    const teams = await listTeams();
    expect(teams.map((t) => [t.name, t.members, t.membersCapped])).toEqual([
      ["Everyone", MEMBER_COUNT_CAP, true],
      ["Few", 3, false],
    ]);
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
    for (const id of [big, small]) {
      const { plans, result } = await plansOf(db(), () => getTeam(id));
      // A page of a team by name: the engine either walks users by name checking membership (a
      // large team) or reads the team's range and sorts it (a small one); both read one team.
      expect(badPlans(plans, { sortsAllowed: ["team_member", "user"] })).toEqual([]);
      if (result?.membersPage.next) {
        const next = await plansOf(db(), () => getTeam(id, { after: result.membersPage.next! }));
        expect(badPlans(next.plans, { sortsAllowed: ["team_member", "user"] })).toEqual([]);
      }
    }
  });
});

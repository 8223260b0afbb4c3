import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { db } from "../db.server";
import { loader } from "../routes/dashboard.users/route";
import { listUsers, type UserListQuery, userListQuery } from "./list.server";
import { USER_SORTS } from "./list-options";

// Keyset pages of the users list against one ORDER BY of the same rows: every sort, both
// directions, each filter, walked forward to the end and back to the start, with ties in every
// sort column and NULL sign-in times.

const NAMES = ["Ann", "Bob", "ann", "Cy"];
const TIMES = ["2026-01-01T10:00:00.000Z", "2026-01-02T10:00:00.000Z", "2026-01-03T10:00:00.000Z"];

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

type Shape = { name: string; created: number; login: number | null; disabled: boolean; verified: boolean };

async function insertUsers(shapes: Shape[], domain: string, roleEvery = 3, roleName = "manager") {
  const role = await roleId(roleName);
  const rows = shapes.map((s, i) => ({
    id: randomUUID(),
    name: s.name,
    email: `k${i}@${domain}`,
    email_verified: s.verified ? 1 : 0,
    status: (s.disabled ? "disabled" : "active") as "active" | "disabled",
    last_login_at: s.login === null ? null : TIMES[s.login]!,
    created_at: TIMES[s.created]!,
    updated_at: TIMES[0]!,
  }));
  for (let i = 0; i < rows.length; i += 100)
    await db()
      .insertInto("user")
      .values(rows.slice(i, i + 100))
      .execute();
  const links = rows.filter((_, i) => i % roleEvery === 0).map((r) => ({ user_id: r.id, role_id: role }));
  for (let i = 0; i < links.length; i += 100)
    await db()
      .insertInto("user_role")
      .values(links.slice(i, i + 100))
      .execute();
}

type Filters = Partial<Pick<UserListQuery, "q" | "status" | "verified" | "role">>;

/** The same rows in one ORDER BY: NULL smallest, then the value, then id, all in `dir`. */
async function fullOrder(f: Filters, sort: UserListQuery["sort"], dir: "asc" | "desc") {
  let q = db().selectFrom("user").select("user.id");
  if (f.q) q = q.where("user.email", "like", `%${f.q}%`);
  if (f.status) q = q.where("user.status", "=", f.status);
  if (f.verified) q = q.where("user.email_verified", "=", f.verified === "yes" ? 1 : 0);
  if (f.role) {
    const roles = await Promise.all(f.role.split(",").map(roleId));
    q = q.where(
      "user.id",
      "in",
      db().selectFrom("user_role").select("user_id").where("role_id", "in", roles),
    );
  }
  const column = sql.ref(`user.${sort}`);
  const rows = await q
    .orderBy(sql`case when ${column} is null then 0 else 1 end`, dir)
    .orderBy(column, dir)
    .orderBy("user.id", dir)
    .execute();
  return rows.map((r) => r.id);
}

/** Follows Next to the end, then Previous back to the start; both walks must agree page by page. */
async function walk(query: Omit<UserListQuery, "after" | "before">) {
  const forward: { ids: string[]; start: number }[] = [];
  let page = await listUsers(query);
  forward.push({ ids: page.rows.map((r) => r.id), start: page.start });
  while (page.next) {
    if (forward.length > 100) throw new Error("Next never ends");
    page = await listUsers({ ...query, after: page.next });
    forward.push({ ids: page.rows.map((r) => r.id), start: page.start });
  }
  const backward = [forward.at(-1)!];
  while (page.prev) {
    if (backward.length > 100) throw new Error("Previous never ends");
    page = await listUsers({ ...query, before: page.prev });
    backward.unshift({ ids: page.rows.map((r) => r.id), start: page.start });
  }
  return { forward, backward, total: page.total };
}

beforeAll(async () => {
  await setupDatabase();
  // 130 people: four names (two differing only in case), three creation times, sign-ins NULL for
  // a third, a fifth disabled, half unverified, a third managers.
  const shapes = Array.from({ length: 130 }, (_, i) => ({
    name: NAMES[i % 4]!,
    created: i % 3,
    login: i % 3 === 0 ? null : i % 2,
    disabled: i % 5 === 0,
    verified: i % 2 === 0,
  }));
  await insertUsers(shapes, "keyset.test");
});

// 1,001 more, all holding the role "user", some never signed in, a few disabled, half unverified.
const MANY: Shape[] = Array.from({ length: 1001 }, (_, i) => ({
  name: NAMES[i % 4]!,
  created: i % 3,
  login: i % 5 === 0 ? null : i % 3,
  disabled: i % 7 === 0,
  verified: i % 2 === 0,
}));

const FILTERS: Filters[] = [
  {},
  { status: "disabled" },
  { verified: "no" },
  { status: "active", verified: "yes" },
  { role: "manager" },
  // Several roles: each holder once, however many of them they hold.
  { role: "manager,user" },
];

describe("users list keyset pages", () => {
  for (const sort of USER_SORTS)
    for (const dir of ["asc", "desc"] as const)
      it(`${sort} ${dir}: every filter walks forward and back in the full order`, async () => {
        for (const filters of FILTERS) {
          const query = userListQuery.parse({ sort, dir, size: 25, ...filters });
          const expected = await fullOrder(filters, sort, dir);
          const { forward, backward, total } = await walk(query);
          expect(
            forward.flatMap((p) => p.ids),
            JSON.stringify(filters),
          ).toEqual(expected);
          expect(forward.map((p) => p.start)).toEqual(forward.map((_, i) => 1 + 25 * i));
          expect(backward).toEqual(forward);
          expect(total).toBe(expected.length);
        }
      });

  it("holds for any rows: ties, NULLs and filters drawn at random", async () => {
    let runNo = 0;
    const shape = fc.record({
      name: fc.constantFrom(...NAMES),
      created: fc.integer({ min: 0, max: 2 }),
      login: fc.option(fc.integer({ min: 0, max: 2 })),
      disabled: fc.boolean(),
      verified: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(shape, { maxLength: 70 }),
        fc.constantFrom(...USER_SORTS),
        fc.constantFrom("asc" as const, "desc" as const),
        fc.constantFrom(...FILTERS),
        async (shapes, sort, dir, filters) => {
          const domain = `run${runNo++}.prop`;
          await insertUsers(shapes, domain, 2);
          const scoped = { ...filters, q: `@${domain}` };
          const { forward, backward } = await walk(userListQuery.parse({ sort, dir, size: 25, ...scoped }));
          expect(forward.flatMap((p) => p.ids)).toEqual(await fullOrder(scoped, sort, dir));
          expect(backward).toEqual(forward);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("caps the count at 1,000 and says so, but for the filters the counters answer exactly", async () => {
    await insertUsers(MANY, "many.test", 1, "user");
    // Earlier tests leave a random number of disabled people: these make "active" pass the cap too.
    const active = MANY.slice(0, 200).map((s) => ({ ...s, disabled: false }));
    await insertUsers(active, "active.test", 1, "manager");
    for (const filters of [{ role: "user" }, { q: "many.test" }]) {
      const page = await listUsers(userListQuery.parse(filters));
      expect(page, JSON.stringify(filters)).toMatchObject({ total: 1000, totalCapped: true, start: 1 });
    }
    // No filter, or the status or verified flag alone: the exact total, from the counters.
    const exact = async (where: { status?: "active" | "disabled"; email_verified?: number }) => {
      let query = db()
        .selectFrom("user")
        .select((eb) => eb.fn.countAll().as("n"));
      if (where.status) query = query.where("status", "=", where.status);
      if (where.email_verified !== undefined)
        query = query.where("email_verified", "=", where.email_verified);
      return Number((await query.executeTakeFirstOrThrow()).n);
    };
    const cases: [Record<string, string>, Parameters<typeof exact>[0]][] = [
      [{}, {}],
      [{ status: "active" }, { status: "active" }],
      [{ status: "disabled" }, { status: "disabled" }],
      [{ verified: "yes" }, { email_verified: 1 }],
      [{ verified: "no" }, { email_verified: 0 }],
    ];
    for (const [filters, where] of cases) {
      const page = await listUsers(userListQuery.parse(filters));
      expect(page, JSON.stringify(filters)).toMatchObject({ total: await exact(where), totalCapped: false });
    }
    expect((await listUsers(userListQuery.parse({}))).total).toBeGreaterThan(1000);
    const few = await listUsers(userListQuery.parse({ q: "@many.test", status: "disabled" }));
    expect(few).toMatchObject({ total: MANY.filter((s) => s.disabled).length, totalCapped: false });
  });

  // 1,001 people hold "user" now: the list walks people in order and checks the role,
  // and counts from the role's links (list.server.ts), rather than reading the role's ids.
  // Each walk is 22 pages, so each sort walks each direction once, with a different filter each
  // way: under CI's load on PostgreSQL the four walks per sort passed the test's 20 s.
  for (const sort of USER_SORTS)
    it(`a large role, ${sort}: walks forward and back in the full order, counted to the cap`, async () => {
      const walks: [dir: "asc" | "desc", filters: Filters][] = [
        ["asc", { role: "user" }],
        ["desc", { role: "user", status: "active", verified: "no" }],
      ];
      // Several roles, one of them large: walked with the roles checked, never a join per role.
      // One sort with NULLs and one without suffice.
      if (sort === "last_login_at" || sort === "name") walks.push(["desc", { role: "manager,user" }]);
      for (const [dir, filters] of walks) {
        const query = userListQuery.parse({ sort, dir, size: 100, ...filters });
        const expected = await fullOrder(filters, sort, dir);
        const { forward, backward, total } = await walk(query);
        expect(
          forward.flatMap((p) => p.ids),
          `${dir} ${JSON.stringify(filters)}`,
        ).toEqual(expected);
        expect(backward).toEqual(forward);
        expect(total).toBe(Math.min(expected.length, 1000));
      }
    });
});

describe("cursors from the URL", () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const bad = [
    "not-a-cursor!",
    Buffer.from("{oops").toString("base64url"),
    b64([1, 2, 3]),
    // A time that is no time: compared with a timestamptz column, a 500 on PostgreSQL.
    b64({ k: "created_at.desc", v: "yesterday", id: "x", n: 3 }),
    b64({ k: "created_at.desc", v: 5, id: "x", n: 3 }),
    // Made for another order.
    b64({ k: "name.asc", v: "Ann", id: "x", n: 3 }),
    // NULL where the sort column holds none; NUL in the id; a place that is no place.
    b64({ k: "created_at.desc", v: null, id: "x", n: 3 }),
    b64({ k: "created_at.desc", v: TIMES[0], id: "a\u0000b", n: 3 }),
    b64({ k: "created_at.desc", v: TIMES[0], id: "x", n: -1 }),
    "A".repeat(5000),
  ];

  it("a malformed or tampered cursor opens the first page, never an error", async () => {
    const admin = await signedIn(["admin"]);
    const open = async (qs: string) => {
      const out = await run(() => loader(args(request(`/dashboard/users?${qs}`, { cookie: admin.cookie }))));
      expect(out.status, qs).toBe(200);
      const body = out.body as { rows: { id: string }[]; start: number; prev: string | null };
      return { ids: body.rows.map((r) => r.id), start: body.start, prev: body.prev };
    };
    const first = await open("");
    expect(first).toMatchObject({ start: 1, prev: null });
    for (const cursor of bad) {
      expect(await open(`after=${encodeURIComponent(cursor)}`), cursor).toEqual(first);
      expect(await open(`before=${encodeURIComponent(cursor)}`), cursor).toEqual(first);
    }
    // An old numbered link opens the first page too (docs/decisions/012).
    expect(await open("page=3")).toEqual(first);
  });
});

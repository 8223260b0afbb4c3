import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { context, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import {
  expectPrototypesClean,
  HOSTILE_MEMBERS,
  HOSTILE_PATHS,
  hostileBodies,
  scrubPrototypes,
} from "../../test/support/hostile-keys";
import { testOrigin } from "../../test/support/scim";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { createDirectory } from "./directories.server";

// Hostile SCIM with a valid directory token: filters, paging, bodies and PATCH operations a
// directory should never send, hostile keys and paths at every depth among them. Every answer is
// below 500 and in SCIM's error shape when refused, no built-in prototype gains a property, and
// nobody outside the directory's reach (a super admin) is ever changed. Fixed seed.

let app: AppServer;
let token: string;
let bossId: string;
const ids: string[] = [];

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
  const user = await createUser({ roles: ["admin"] });
  const cookie = await sessionCookieFor(user.id);
  const admin = (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))!;
  const role = await db()
    .selectFrom("role")
    .select("id")
    .where("name", "=", "user")
    .executeTakeFirstOrThrow();
  ({ token } = await createDirectory(
    admin,
    {
      name: "Fuzz",
      domains: ["fuzz.example"],
      defaultRoleId: role.id,
      groupRoles: [],
      sendPasswordLink: false,
    },
    testOrigin(),
  ));
  bossId = (await createUser({ roles: ["super_admin"], email: "boss@fuzz.example" })).id;
  ids.push(bossId, (await createUser({ roles: ["user"], email: "member@fuzz.example" })).id);
});
afterAll(() => app.close());
// A failure below must not leave Object.prototype polluted for the tests after it.
afterEach(scrubPrototypes);

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    'userName eq "boss@fuzz.example"',
    "userName eq",
    '((a eq "b"',
    'emails[type eq "work"]',
    "%00",
    "\u0000",
    "'; drop table user;--",
    "x".repeat(3000),
  ),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  text,
  fc.integer(),
  // Keys that walk into a prototype, at every depth, and numbers past any column (issue 34).
  fc.constantFrom(...HOSTILE_MEMBERS).map((m): unknown => JSON.parse(m)),
  fc.constantFrom(1e308, -1e308, 2 ** 64, 2 ** 31),
  fc.boolean(),
  fc.constant(null),
  fc.array(
    fc.record({ value: fc.oneof(text, fc.constantFrom(...["00000000-0000-0000-0000-000000000000"])) }),
    { maxLength: 3 },
  ),
  fc.dictionary(fc.constantFrom("active", "userName", "displayName", "members"), text, { maxKeys: 2 }),
);
const userBody = fc.record(
  {
    schemas: fc.constant(["urn:ietf:params:scim:schemas:core:2.0:User"]),
    userName: fc.oneof(text, fc.constantFrom("new@fuzz.example", "boss@fuzz.example", "x@elsewhere.example")),
    displayName: value,
    active: value,
    emails: value,
    name: value,
  },
  { requiredKeys: [] },
);
const patchBody = fc.record(
  {
    schemas: fc.oneof(
      { weight: 3, arbitrary: fc.constant(["urn:ietf:params:scim:api:messages:2.0:PatchOp"]) },
      { weight: 1, arbitrary: value },
    ),
    Operations: fc.oneof(
      fc.array(
        fc.record(
          {
            op: fc.oneof(fc.constantFrom("add", "Replace", "remove", "move"), text),
            path: fc.oneof(
              fc.constantFrom(
                "active",
                "members",
                'members[value eq "x"]',
                "name.givenName",
                'emails[type eq "work"].value',
                "meta.created",
                "id",
              ),
              fc.constantFrom(...HOSTILE_PATHS),
              text,
            ),
            value,
          },
          { requiredKeys: ["op"] },
        ),
        { maxLength: 3 },
      ),
      value,
    ),
  },
  { requiredKeys: [] },
);

function send(method: string, path: string, body?: unknown) {
  return app.handle(
    new Request(`http://localhost:3000/scim/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

describe("fuzz: hostile SCIM with a valid token", () => {
  it("never answers 500, refuses in SCIM's shape, and never changes a super admin", async () => {
    const id = fc.oneof(fc.constantFrom(...ids, "%zz", "%E0%A4%A", "a/b"), text.map(encodeURIComponent));
    // PATCH targets nothing else deletes, so most PATCHes reach scim-patch with a hostile path or value.
    const patchUser = (await createUser({ roles: ["user"], email: "patched@fuzz.example" })).id;
    const created = await send("POST", "/Groups", { displayName: "Patched" });
    const patchGroup = ((await created.json()) as { id: string }).id;
    const patchTarget = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(`/Users/${patchUser}`, `/Groups/${patchGroup}`) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("/Users/", "/Groups/"), id).map(([c, i]) => c + i) },
    );
    const paging = fc.oneof(
      text,
      fc.constantFrom("1e300", "-1e300", "2147483648", "NaN", "Infinity", "0x10"),
    );
    const call = fc.oneof(
      fc.record({
        method: fc.constant("GET"),
        path: fc
          .tuple(fc.constantFrom("/Users", "/Groups"), text, paging, paging)
          .map(
            ([c, f, s, n]) =>
              `${c}?filter=${encodeURIComponent(f)}&startIndex=${encodeURIComponent(s)}&count=${encodeURIComponent(n)}`,
          ),
      }),
      fc.record({
        method: fc.constant("POST"),
        path: fc.constantFrom("/Users", "/Groups"),
        body: fc.oneof(userBody, value, fc.constant("{not json")),
      }),
      fc.record({
        method: fc.constantFrom("PUT", "DELETE", "GET"),
        path: id.map((i) => `/Users/${i}`),
        body: userBody,
      }),
      fc.record({
        method: fc.constant("PATCH"),
        path: patchTarget,
        body: patchBody,
      }),
    );
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        const res = await send(
          c.method,
          c.path,
          c.method === "GET" || c.method === "DELETE" ? undefined : (c as { body?: unknown }).body,
        );
        const text = await res.text();
        const where = `${c.method} ${c.path.slice(0, 200)} -> ${res.status} ${text.slice(0, 300)}`;
        expect(res.status, where).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.headers.get("Content-Type"), where).toMatch(/^application\/scim\+json/);
          expect(JSON.parse(text), where).toMatchObject({ status: String(res.status) });
        }
        expectPrototypesClean(where);
      }),
      { seed: 20261127, numRuns: 200 },
    );
    const boss = await db()
      .selectFrom("user")
      .select(["status", "directory_id", "name"])
      .where("id", "=", bossId)
      .executeTakeFirstOrThrow();
    expect(boss.status).toBe("active");
    expect(boss.directory_id).toBeNull();
    expect((await send("GET", "/ServiceProviderConfig")).status).toBe(200);
  }, 120_000);
});

describe("hostile keys, paths, numbers and nesting (issue 34)", () => {
  const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
  const patch = (Operations: unknown) => ({ schemas: [PATCH], Operations });

  async function expectRefused(res: Response, scimType: string, where: string) {
    const body = await res.text();
    expect(res.status, `${where} -> ${body.slice(0, 300)}`).toBe(400);
    expect(JSON.parse(body), where).toMatchObject({ status: "400", scimType });
    expectPrototypesClean(where);
  }

  it("refuses a PATCH path or value naming __proto__, constructor or prototype at any depth, on Users and Groups", async () => {
    const user = await send("POST", "/Users", { userName: "hostile@fuzz.example", name: { givenName: "H" } });
    expect(user.status).toBe(201);
    const userId = ((await user.json()) as { id: string }).id;
    const group = await send("POST", "/Groups", { displayName: "Hostile" });
    expect(group.status).toBe(201);
    const groupId = ((await group.json()) as { id: string }).id;
    for (const at of [`/Users/${userId}`, `/Groups/${groupId}`]) {
      for (const path of HOSTILE_PATHS)
        for (const op of ["add", "replace", "remove"])
          await expectRefused(
            await send("PATCH", at, patch([{ op, path, value: "yes" }])),
            "invalidPath",
            `${op} ${path}`,
          );
      const values = [
        ...hostileBodies(patch([{ op: "add", value: "$" }])),
        ...hostileBodies(patch([{ op: "replace", path: "name", value: "$" }])),
        ...hostileBodies(patch([{ op: "add", path: "members", value: "$" }])),
      ];
      for (const body of values) await expectRefused(await send("PATCH", at, body), "invalidValue", body);
    }
    const bodies = [
      ...hostileBodies({ userName: "polluter@fuzz.example", name: "$" }),
      ...hostileBodies({ userName: "polluter@fuzz.example", emails: "$" }),
      ...hostileBodies({ userName: "polluter@fuzz.example", "urn:x": "$" }),
    ];
    for (const body of bodies) {
      await expectRefused(await send("POST", "/Users", body), "invalidValue", body);
      await expectRefused(await send("PUT", `/Users/${userId}`, body), "invalidValue", body);
    }
    for (const body of hostileBodies({ displayName: "Polluters", members: "$" }))
      await expectRefused(await send("POST", "/Groups", body), "invalidValue", body);
    const row = await db()
      .selectFrom("user")
      .select(["name", "email"])
      .where("id", "=", userId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ name: "H", email: "hostile@fuzz.example" });
    expect(
      await db().selectFrom("user").select("id").where("email", "=", "polluter@fuzz.example").execute(),
    ).toEqual([]);
    expect((await send("GET", "/ServiceProviderConfig")).status).toBe(200);
  }, 60_000);

  it("reads a quoted filter value as a value: a group or address merely containing those words is patched", async () => {
    const created = await send("POST", "/Users", {
      userName: "prototype@fuzz.example",
      emails: [{ value: "prototype@fuzz.example", type: "work", primary: false }],
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const out = await send(
      "PATCH",
      `/Users/${id}`,
      patch([{ op: "replace", path: 'emails[value eq "prototype@fuzz.example"].primary', value: true }]),
    );
    expect(out.status).toBe(200);
    const group = await send("POST", "/Groups", { displayName: "Constructor Team" });
    const groupId = ((await group.json()) as { id: string }).id;
    const renamed = await send(
      "PATCH",
      `/Groups/${groupId}`,
      patch([{ op: "remove", path: `members[value eq "${id}" and display eq "__proto__ fans"]` }]),
    );
    expect(renamed.status).toBe(200);
    expectPrototypesClean("quoted values");
  });

  it("refuses startIndex and count that are no 32-bit integer with 400 invalidValue; clamps the rest", async () => {
    for (const collection of ["/Users", "/Groups"]) {
      for (const q of [
        "startIndex=1e300",
        "startIndex=2147483648",
        "startIndex=99999999999999999999",
        "startIndex=-1e300",
        "startIndex=NaN",
        "startIndex=Infinity",
        "startIndex=1.5",
        "count=1e300",
        "count=-99999999999999999999",
        "count=NaN",
      ])
        await expectRefused(await send("GET", `${collection}?${q}`), "invalidValue", `${collection}?${q}`);
      for (const q of ["startIndex=2147483647", "startIndex=-5", "count=-1", "count=100000"]) {
        const res = await send("GET", `${collection}?${q}`);
        expect(res.status, q).toBe(200);
      }
    }
    const last = await send("GET", "/Users?startIndex=2147483647&count=100000");
    expect(await last.json()).toMatchObject({ startIndex: 2147483647, itemsPerPage: 0 });
  });

  it("refuses a body nested deeper than any resource with 400 invalidSyntax", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const wide = `{"userName":"deep@fuzz.example","name":${'{"a":'.repeat(1000)}1${"}".repeat(1000)}}`;
    for (const [method, path] of [
      ["POST", "/Users"],
      ["PUT", `/Users/${ids[1]}`],
      ["PATCH", `/Users/${ids[1]}`],
      ["POST", "/Groups"],
    ] as const)
      for (const body of [deep, wide])
        await expectRefused(await send(method, path, body), "invalidSyntax", `${method} ${path}`);
  });
});

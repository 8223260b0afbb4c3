import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startApp } from "../../test/app-server";
import { context, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { testOrigin } from "../../test/support/scim";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { createDirectory } from "./directories.server";

// Hostile SCIM with a valid directory token: filters, paging, bodies and PATCH operations a
// directory should never send. Every answer is below 500 and in SCIM's error shape when refused,
// and nobody outside the directory's reach (a super admin) is ever changed. Fixed seed.

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
    schemas: fc.oneof(fc.constant(["urn:ietf:params:scim:api:messages:2.0:PatchOp"]), value),
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
    const call = fc.oneof(
      fc.record({
        method: fc.constant("GET"),
        path: fc
          .tuple(fc.constantFrom("/Users", "/Groups"), text, text, text)
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
        path: fc.tuple(fc.constantFrom("/Users/", "/Groups/"), id).map(([c, i]) => c + i),
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
      }),
      { seed: 20261127, numRuns: 300 },
    );
    const boss = await db()
      .selectFrom("user")
      .select(["status", "directory_id", "name"])
      .where("id", "=", bossId)
      .executeTakeFirstOrThrow();
    expect(boss.status).toBe("active");
    expect(boss.directory_id).toBeNull();
  }, 120_000);
});

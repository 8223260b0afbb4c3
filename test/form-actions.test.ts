import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../app/db.server";
import { bodyLimitFor } from "../app/http/body-limits";
import { args, ORIGIN, ownTables, request, run, setupDatabase, signedIn } from "./helpers";

// Every page action, found by file rather than listed, so a new page cannot forget the rule. A
// page is `routes/<name>.tsx` or, kept in a folder with its parts, `routes/<name>/route.tsx`.
type RouteModule = { action?: (a: unknown) => Promise<unknown> };
const modules = import.meta.glob<RouteModule>(["../app/routes/*.tsx", "../app/routes/*/route.tsx"], {
  eager: true,
});
const pages = Object.entries(modules)
  .filter(([, mod]) => typeof mod.action === "function")
  .map(([file, mod]) => [file.replace(/^.*\/routes\/|(\/route)?\.tsx$/g, ""), mod.action!] as const);

// Actions that never read a body: signing out needs nothing but the session.
const BODYLESS = new Set(["logout"]);

function urlOf(route: string) {
  return `/${route.replace(/\$id/, randomUUID()).replace(/\./g, "/")}`;
}
function paramsOf(route: string): Record<string, string> {
  return route.includes("$id") ? { id: randomUUID() } : {};
}

/** Row counts of every table, to show a refused request changed nothing. */
async function snapshot() {
  const tables = (await ownTables()).filter(
    (name) => !name.startsWith("kysely_") && name !== "rate_limit" && name !== "session",
  );
  const counts: Record<string, number> = {};
  for (const name of tables) {
    const row = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(name)}`.execute(db());
    counts[name] = Number(row.rows[0]!.n);
  }
  return counts;
}

let cookie: string;
beforeAll(async () => {
  await setupDatabase();
  ({ cookie } = await signedIn(["super_admin"]));
});

const bodies: [string, Record<string, string>, string | undefined][] = [
  [
    "JSON",
    { "Content-Type": "application/json" },
    JSON.stringify({ email: "a@example.test", intent: "create" }),
  ],
  ["plain text", { "Content-Type": "text/plain" }, "email=a@example.test"],
  ["an empty body without a type", {}, undefined],
];

describe("page actions refuse a body that is not a form", () => {
  it("finds the page actions", () => {
    expect(pages.map(([r]) => r)).toEqual(expect.arrayContaining(["login", "register", "dashboard.users"]));
  });

  for (const [route, action] of pages.filter(([r]) => !BODYLESS.has(r))) {
    it.each(bodies)(`${route}: %s → 415 with a message, nothing changed`, async (_label, headers, body) => {
      const before = await snapshot();
      const out = await run(() =>
        action(args(request(urlOf(route), { method: "POST", cookie, headers, body }), paramsOf(route))),
      );
      expect(out.status).toBe(415);
      expect(out.body).toMatchObject({ message: expect.stringContaining("form") });
      expect(await snapshot()).toEqual(before);
    });
  }

  it.each(pages.filter(([r]) => !BODYLESS.has(r)))(
    "%s: a form over the limit (no Content-Length) → 413, nothing changed",
    async (route, action) => {
      const before = await snapshot();
      const big = `email=${"a".repeat(bodyLimitFor(urlOf(route)))}`;
      const out = await run(() =>
        action(
          args(
            new Request(ORIGIN + urlOf(route), {
              method: "POST",
              headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
              body: new Blob([big]).stream(),
              duplex: "half",
            } as RequestInit),
            paramsOf(route),
          ),
        ),
      );
      expect(out.status).toBe(413);
      expect(await snapshot()).toEqual(before);
    },
  );
});

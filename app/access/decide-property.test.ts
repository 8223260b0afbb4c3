import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { createTeam } from "../../test/support/teams";
import { requireOnUser, requireSomewhere } from "../auth/guard.server";
import { getSessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { explain } from "./explain.server";
import { PERMISSION_KEYS } from "./permissions";
import { inReach, mayAnywhere } from "./reach.server";
import { invalidateRoles } from "./role-cache.server";

// "One decision function": over random roles, teams, grants and targets, every guard a page or an
// action uses answers what explain() says, the session's grants (cached, judged per request) and
// the database's (read fresh) going through the same decide().

const TEAMS = 3;
const TARGETS = 5;
let teams: string[];
let targets: string[];
const roleIds: string[] = [];

beforeAll(async () => {
  await setupDatabase();
  targets = [];
  for (let i = 0; i < TARGETS; i++) targets.push((await createUser({ roles: ["user"] })).id);
  // Target i is in the teams whose bit is set in i: none, one, two.
  teams = [];
  for (let t = 0; t < TEAMS; t++)
    teams.push(
      await createTeam(
        db(),
        `Prop ${t}`,
        targets.filter((_, i) => ((i + 1) >> t) & 1),
      ),
    );
  for (let r = 0; r < 3; r++) {
    const id = randomUUID();
    await db()
      .insertInto("role")
      .values({ id, name: `prop_${r}`, label: `Prop ${r}`, created_at: now(), updated_at: now() })
      .execute();
    roleIds.push(id);
  }
  const seeded = await db()
    .selectFrom("role")
    .select("id")
    .where("name", "in", ["admin", "super_admin"])
    .execute();
  roleIds.push(...seeded.map((r) => r.id));
});

const grantArb = fc.record({
  role: fc.nat({ max: 4 }),
  team: fc.option(fc.nat({ max: TEAMS - 1 }), { nil: null }),
  expired: fc.boolean(),
});
const scenario = fc.record({
  permissions: fc.array(fc.subarray([...PERMISSION_KEYS]), { minLength: 3, maxLength: 3 }),
  grants: fc.array(grantArb, { maxLength: 4 }),
});

async function refusedStatus(fn: () => Promise<unknown>): Promise<number | null> {
  try {
    await fn();
    return null;
  } catch (error) {
    if (error instanceof Response) return error.status;
    throw error;
  }
}

describe("decide(): the guards and explain() agree", () => {
  it("for every permission and target, over random roles and grants", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ permissions, grants }) => {
        const keys = await db().selectFrom("permission").select(["id", "key"]).execute();
        for (let r = 0; r < 3; r++) {
          await db().deleteFrom("role_permission").where("role_id", "=", roleIds[r]!).execute();
          const ids = keys.filter((k) => permissions[r]!.includes(k.key as never)).map((k) => k.id);
          if (ids.length)
            await db()
              .insertInto("role_permission")
              .values(ids.map((permission_id) => ({ role_id: roleIds[r]!, permission_id })))
              .execute();
        }
        await invalidateRoles();
        // Everyone enters the dashboard through a global `user`; the rest is the scenario's.
        const subject = await createUser({ roles: ["user"] });
        const seen = new Set<string>();
        for (const g of grants) {
          const team = g.team === null ? null : teams[g.team]!;
          const key = `${g.role}|${team}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const ends = new Date(Date.now() + (g.expired ? -60_000 : 3_600_000)).toISOString();
          await db()
            .insertInto("user_role")
            .values({ user_id: subject.id, role_id: roleIds[g.role]!, team_id: team, expires_at: ends })
            .execute();
        }
        const cookie = await sessionCookieFor(subject.id);
        const a = () => args(request("/api/x", { cookie }));
        const user = (await getSessionUser(a()))!;
        for (const permission of PERMISSION_KEYS) {
          const anywhere = (await explain(subject.id, permission))!.allowed;
          expect(mayAnywhere(user, permission), permission).toBe(anywhere);
          expect((await refusedStatus(() => requireSomewhere(a(), permission))) === null).toBe(anywhere);
          const reached = await inReach(user, permission, targets);
          for (const target of targets) {
            const allowed = (await explain(subject.id, permission, target))!.allowed;
            expect(reached.has(target), `${permission} on ${target}`).toBe(allowed);
            const status = await refusedStatus(() => requireOnUser(a(), permission, target));
            expect(status).toBe(allowed ? null : anywhere ? 404 : 403);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { createTeam, grant } from "../../test/support/teams";
import { db } from "../db.server";
import * as grantsRoute from "../routes/api.users.$id.roles";
import * as grantRoute from "../routes/api.users.$id.roles.$grantId";
import { loader as logsLoader } from "../routes/dashboard.logs/route";
import { action as userAction } from "../routes/dashboard.users.$id/route";

// The Sales lead (global `user`, `admin` within Sales) against people who hold more than that:
// each case here was found by an insider's review and failed before its fix (SECURITY-PLAYBOOK §4-5).

let lead: { id: string; cookie: string };
let manager: string; // in Sales, global manager: reads everyone
let both: string; // in Sales and Marketing, manager within Marketing
let sam: string;
let sales: string;
let marketing: string;

beforeAll(async () => {
  await setupDatabase();
  const l = await createUser({ roles: ["user"], name: "Lead Insider" });
  manager = (await createUser({ roles: ["manager"], name: "Global Manager" })).id;
  both = (await createUser({ roles: ["user"], name: "Two Teams" })).id;
  sam = (await createUser({ roles: ["user"], name: "Sam Insider" })).id;
  const mia = (await createUser({ roles: ["user"], name: "Mia Insider" })).id;
  sales = await createTeam(db(), "Sales I", [l.id, manager, both, sam]);
  marketing = await createTeam(db(), "Marketing I", [both, mia]);
  await grant(db(), l.id, "admin", sales);
  await grant(db(), both, "manager", marketing);
  lead = { id: l.id, cookie: await sessionCookieFor(l.id) };
});

const pagePost = (id: string, fields: Record<string, string | string[]>) =>
  run(() => userAction(args(formRequest(`/dashboard/users/${id}`, fields, { cookie: lead.cookie }), { id })));
const api = (path: string, init: { method: string; body?: unknown }, params: Record<string, string>) =>
  run(() => {
    const req = request(path, {
      cookie: lead.cookie,
      method: init.method,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      headers: { "Content-Type": "application/json" },
    });
    const route = params.grantId ? grantRoute : grantsRoute;
    return (route.action as (a: never) => unknown)(args(req, params));
  });

describe("a lead within Sales cannot reach past Sales through a member who holds more", () => {
  it("cannot edit or reset a Sales member who is a manager over everyone", async () => {
    const emailOf = async (id: string) =>
      (await db().selectFrom("user").select("email").where("id", "=", id).executeTakeFirstOrThrow()).email;
    const before = await emailOf(manager);
    const managerRole = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "manager")
      .executeTakeFirstOrThrow();
    const edit = await pagePost(manager, {
      intent: "update",
      name: "Global Manager",
      email: "lead-owned@example.test",
      roles: [managerRole.id],
    });
    expect(edit.status).toBe(403);
    expect(await emailOf(manager)).toBe(before);
    expect((await pagePost(manager, { intent: "send-reset" })).status).toBe(403);
    expect((await pagePost(manager, { intent: "disable" })).status).toBe(403);
  });

  it("cannot edit a Sales member who is a manager within Marketing", async () => {
    expect((await pagePost(both, { intent: "send-reset" })).status).toBe(403);
  });

  it("cannot revoke the global grant of a role they could never grant", async () => {
    const row = await db()
      .selectFrom("user_role")
      .select("id")
      .where("user_id", "=", manager)
      .where("team_id", "is", null)
      .executeTakeFirstOrThrow();
    const out = await api(
      `/api/users/${manager}/roles/${row.id}`,
      { method: "DELETE" },
      { id: manager, grantId: row.id },
    );
    expect(out.status).toBe(403);
    expect(
      await db().selectFrom("user_role").select("id").where("id", "=", row.id).executeTakeFirst(),
    ).toBeTruthy();
  });

  it("cannot grant to themselves, nor grant or revoke in a team they do not reach, nor a role that gives nothing there", async () => {
    const self = await api(
      `/api/users/${lead.id}/roles`,
      { method: "POST", body: { role: "manager", team: sales } },
      { id: lead.id },
    );
    expect(self.status).toBe(403);
    const elsewhere = await api(
      `/api/users/${sam}/roles`,
      { method: "POST", body: { role: "guest", team: marketing } },
      { id: sam },
    );
    // A team out of reach is refused as an unknown one is.
    expect(elsewhere).toMatchObject({ status: 400, body: { field: "team" } });
    const nothing = await api(
      `/api/users/${sam}/roles`,
      { method: "POST", body: { role: "user", team: sales } },
      { id: sam },
    );
    expect(nothing).toMatchObject({ status: 400, body: { field: "role" } });
    expect(
      await db()
        .selectFrom("user_role")
        .select("id")
        .where("user_id", "in", [lead.id, sam])
        .where("team_id", "is not", null)
        .where("user_id", "=", sam)
        .execute(),
    ).toEqual([]);
  });

  it("the audit log's person filter says nothing of someone out of reach", async () => {
    const mia = await db()
      .selectFrom("user")
      .select("id")
      .where("name", "=", "Mia Insider")
      .executeTakeFirstOrThrow();
    const out = await run(() =>
      logsLoader(args(request(`/dashboard/logs?person=${mia.id}`, { cookie: lead.cookie }))),
    );
    expect((out.body as { person: unknown }).person).toBeNull();
  });

  it("a lead whose grant ends gives nothing that outlives it", async () => {
    const temp = await createUser({ roles: ["user"], name: "Temp Lead" });
    const member = (await createUser({ roles: ["user"], name: "Temp Member" })).id;
    const team = await createTeam(db(), "Temp team", [temp.id, member]);
    const ends = new Date(Date.now() + 86_400_000);
    await grant(db(), temp.id, "admin", team, ends.toISOString());
    const cookie = await sessionCookieFor(temp.id);
    const post = (body: unknown) =>
      run(() =>
        grantsRoute.action(
          args(
            request(`/api/users/${member}/roles`, {
              cookie,
              method: "POST",
              body: JSON.stringify(body),
              headers: { "Content-Type": "application/json" },
            }),
            { id: member },
          ) as never,
        ),
      );
    expect(await post({ role: "manager", team })).toMatchObject({
      status: 400,
      body: { field: "expiresAt" },
    });
    const later = new Date(ends.getTime() + 3_600_000).toISOString();
    expect((await post({ role: "manager", team, expiresAt: later })).status).toBe(400);
    const sooner = new Date(ends.getTime() - 3_600_000).toISOString();
    expect((await post({ role: "manager", team, expiresAt: sooner })).status).toBe(201);
  });
});

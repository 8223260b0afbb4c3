import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { createTeam, grant } from "../../test/support/teams";
import { db } from "../db.server";
import { action as simulateAction } from "../routes/api.access.simulate";
import { explain } from "./explain.server";
import { PERMISSION_KEYS } from "./permissions";
import { saveRoleMatrix } from "./roles-admin.server";
import { matrixChanges, type Shift } from "./simulate.server";

// POST /api/access/simulate: who gains and loses what, decided by the same decide(), writing nothing;
// and a matrix save then changes exactly what its preview said.

let admin: { id: string; cookie: string };
let salesAdmin: string;
let sales: string;

beforeAll(async () => {
  await setupDatabase();
  const a = await createUser({ roles: ["admin"], name: "Ada Sim" });
  admin = { id: a.id, cookie: await sessionCookieFor(a.id) };
  const lead = await createUser({ roles: ["user"], name: "Sal Sim" });
  salesAdmin = lead.id;
  sales = await createTeam(db(), "Sim Sales", [lead.id]);
  await grant(db(), lead.id, "admin", sales);
});

const post = (body: unknown, cookie = admin.cookie) =>
  run(() =>
    simulateAction(
      args(
        request("/api/access/simulate", {
          method: "POST",
          cookie,
          body: typeof body === "string" ? body : JSON.stringify(body),
          headers: { "Content-Type": "application/json" },
        }),
      ),
    ),
  );

const roleRows = () =>
  db()
    .selectFrom("role_permission")
    .innerJoin("role", "role.id", "role_permission.role_id")
    .select(["role.name", "role_permission.permission_id"])
    .orderBy("role.name")
    .orderBy("role_permission.permission_id")
    .execute();

const key = (s: Shift) => `${s.user.id}|${s.permission}|${s.team?.id ?? "*"}`;

describe("POST /api/access/simulate", () => {
  it("taking user.update from admin: everyone who loses it, the Sales admin within Sales, nothing written", async () => {
    const before = await roleRows();
    const out = await post({ changes: [{ op: "permissions", role: "admin", remove: ["user.update"] }] });
    expect(out.status).toBe(200);
    const body = out.body as { gains: Shift[]; losses: Shift[]; lossesTotal: number };
    expect(body.gains).toEqual([]);
    const losers = body.losses.map(key);
    expect(losers).toContain(`${admin.id}|user.update|*`);
    expect(losers).toContain(`${salesAdmin}|user.update|${sales}`);
    expect(body.losses.find((l) => l.user.id === salesAdmin)?.team).toEqual({ id: sales, name: "Sim Sales" });
    expect(body.losses.every((l) => l.permission === "user.update")).toBe(true);
    expect(body.lossesTotal).toBe(body.losses.length);
    expect(await roleRows()).toEqual(before);
  });

  it("a grant within a team gains its scopable permissions there only; a revoke loses them", async () => {
    const sam = await createUser({ roles: ["user"], name: "Sam Sim" });
    const out = await post({ changes: [{ op: "grant", user: sam.id, role: "admin", team: sales }] });
    const gains = (out.body as { gains: Shift[] }).gains;
    expect(new Set(gains.map((g) => g.permission))).toEqual(
      new Set([
        "user.read",
        "user.write",
        "user.update",
        "user.delete",
        "log.read",
        "team.read",
        "team.write",
      ]),
    );
    expect(gains.every((g) => g.team?.id === sales)).toBe(true);
    const revoke = await post({ changes: [{ op: "revoke", user: salesAdmin, role: "admin", team: sales }] });
    expect((revoke.body as { losses: Shift[] }).losses).toHaveLength(7);
  });

  it("bad input: unknown role or person 400 naming the change, 10,000 changes refused at once, roles.manage only", async () => {
    const role = await post({ changes: [{ op: "permissions", role: "nope", add: ["user.read"] }] });
    expect(role).toMatchObject({ status: 400, body: { error: "invalid_request", field: "changes.0.role" } });
    const nobody = await post({ changes: [{ op: "grant", user: crypto.randomUUID(), role: "admin" }] });
    expect(nobody).toMatchObject({ status: 400, body: { field: "changes.0.user" } });
    const many = Array.from({ length: 10_000 }, () => ({ op: "permissions", role: "admin", add: [] }));
    expect([400, 413]).toContain((await post({ changes: many })).status);
    const lead = await sessionCookieFor(salesAdmin);
    expect((await post({ changes: [{ op: "permissions", role: "admin", add: [] }] }, lead)).status).toBe(403);
  });

  it("a matrix save changes exactly what its preview said", async () => {
    await createUser({ roles: ["manager"], name: "Max Sim" });
    await createUser({ roles: ["manager", "admin"], name: "Both Sim" });
    const people = await db().selectFrom("user").select("id").execute();
    const heldBy = async () => {
      const out = new Map<string, boolean>();
      for (const { id } of people)
        for (const p of PERMISSION_KEYS) out.set(`${id}|${p}`, (await explain(id, p))!.allowed);
      return out;
    };
    const manager = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "manager")
      .executeTakeFirstOrThrow();
    const edit = {
      roleId: manager.id,
      label: "Manager",
      translations: {},
      description: "",
      permissions: ["dashboard.access", "user.read", "log.read"],
    };
    const changes = await matrixChanges([edit]);
    const preview = (await post({ changes })).body as { gains: Shift[]; losses: Shift[] };
    const before = await heldBy();
    await saveRoleMatrix(
      { id: admin.id, email: "a@x", isSuperAdmin: true, permissions: new Set() },
      { roles: [edit] },
      {
        request: new Request("http://localhost/"),
      },
    );
    const after = await heldBy();
    const changed = [...after]
      .filter(([k, v]) => before.get(k) !== v)
      .map(([k, v]) => `${k}|${v ? "gain" : "loss"}`);
    const said = [
      ...preview.gains.filter((g) => !g.team).map((g) => `${g.user.id}|${g.permission}|gain`),
      ...preview.losses.filter((g) => !g.team).map((g) => `${g.user.id}|${g.permission}|loss`),
    ];
    expect(changed.sort()).toEqual(said.sort());
    expect(said.length).toBeGreaterThan(0);
  });
});

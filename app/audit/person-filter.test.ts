import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { csvCells } from "../../test/support/csv";
import { RecordingRunner } from "../../test/tasks";
import { invalidateRoles } from "../access/role-cache.server";
import { db } from "../db.server";
import { loader as downloadLoader } from "../routes/api.tasks.$id.download";
import { loader } from "../routes/dashboard.logs/route";
import { auditExport } from "../tasks/definitions/audit-export.server";
import { setTaskRunner } from "../tasks/runner.server";

// One person's trail: by id, as actor, as target and while viewing as someone else, never a namesake.

const HOUR = 3_600_000;
let alex: { id: string; email: string };
let namesake: { id: string; email: string };
let other: { id: string; email: string };

function row(i: number, fields: Record<string, string | null>) {
  return {
    id: randomUUID(),
    actor_id: null,
    actor_email: null,
    action: "user.update",
    target_type: null,
    target_id: null,
    details: null,
    ip: null,
    user_agent: null,
    impersonator_id: null,
    impersonator_email: null,
    // Hours ago: i = 0 is the newest.
    created_at: new Date(Date.now() - i * HOUR - 60_000).toISOString(),
    ...fields,
  };
}

beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(new RecordingRunner());
  alex = await createUser({ name: "Alex Doe", email: "alex@example.test" });
  namesake = await createUser({ name: "Alex Doe", email: "alex.two@example.test" });
  other = await createUser({ name: "Olive Other", email: "olive@example.test" });
  const rows = [];
  // 40 hours: each hour one row by Alex, one about Alex, one by the namesake, one Alex did as Olive.
  for (let i = 0; i < 40; i++) {
    rows.push(row(i, { actor_id: alex.id, actor_email: alex.email, action: "team.create" }));
    rows.push(
      row(i, { actor_id: other.id, actor_email: other.email, target_type: "user", target_id: alex.id }),
    );
    rows.push(
      row(i, {
        actor_id: namesake.id,
        actor_email: namesake.email,
        target_type: "user",
        target_id: other.id,
      }),
    );
    rows.push(
      row(i, {
        actor_id: other.id,
        actor_email: other.email,
        impersonator_id: alex.id,
        impersonator_email: alex.email,
        action: "team.update",
      }),
    );
  }
  // Alex acting on their own record: one row, listed once.
  rows.push(row(0, { actor_id: alex.id, actor_email: alex.email, target_type: "user", target_id: alex.id }));
  await db().deleteFrom("audit_log").execute();
  await db().insertInto("audit_log").values(rows).execute();
});

async function roleIdOf(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

type Listed = {
  rows: { id: string; createdAt: string; actor: { id: string | null } }[];
  next: string | null;
  person: { name: string; email: string } | null;
};

async function list(cookie: string, qs: string) {
  return run(() => loader(args(request(`/dashboard/logs?${qs}`, { cookie }))));
}

describe("the audit log's person filter", () => {
  it("lists what a person did, what was done to them and what they did as another, once each, newest first", async () => {
    const admin = await signedIn(["admin"]);
    const seen: Listed["rows"] = [];
    let qs = `person=${alex.id}&size=25`;
    for (;;) {
      const out = await list(admin.cookie, qs);
      expect(out.status).toBe(200);
      const body = out.body as Listed;
      expect(body.person).toMatchObject({ name: "Alex Doe", email: alex.email });
      seen.push(...body.rows);
      if (!body.next) break;
      qs = `person=${alex.id}&size=25&after=${encodeURIComponent(body.next)}`;
    }
    expect(seen).toHaveLength(3 * 40 + 1);
    expect(new Set(seen.map((r) => r.id)).size).toBe(seen.length);
    const times = seen.map((r) => r.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    // The namesake's rows are not Alex's.
    expect(seen.some((r) => r.actor.id === namesake.id)).toBe(false);
  });

  it("keeps to the last 24 hours, 7 days or 30 days", async () => {
    const admin = await signedIn(["admin"]);
    const day = (await list(admin.cookie, `person=${alex.id}&within=24h&size=200`)).body as Listed;
    expect(day.rows).toHaveLength(3 * 24 + 1);
    const week = (await list(admin.cookie, `person=${alex.id}&within=7d&size=200`)).body as Listed;
    expect(week.rows).toHaveLength(3 * 40 + 1);
  });

  it("refuses an id that names no one, or a period it does not offer, with 400", async () => {
    const admin = await signedIn(["admin"]);
    for (const qs of ["person=alex", "person=1%27%20or%201=1", "within=1y", "within=__proto__"]) {
      const out = await list(admin.cookie, qs);
      expect(out.status, qs).toBe(400);
    }
    // A deleted person's trail still opens, by the id the rows keep.
    const gone = (await list(admin.cookie, `person=${randomUUID()}`)).body as Listed;
    expect(gone.rows).toEqual([]);
    expect(gone.person).toBeNull();
  });

  it("names the person by their current email only to someone who may read users", async () => {
    const auditor = await signedIn(["admin"]);
    const withRead = (await list(auditor.cookie, `person=${alex.id}`)).body as Listed;
    expect(withRead.person).toMatchObject({ email: alex.email });
    await db()
      .deleteFrom("role_permission")
      .where("role_id", "=", await roleIdOf("admin"))
      .where(
        "permission_id",
        "=",
        (
          await db()
            .selectFrom("permission")
            .select("id")
            .where("key", "=", "user.read")
            .executeTakeFirstOrThrow()
        ).id,
      )
      .execute();
    invalidateRoles();
    const without = (await list(auditor.cookie, `person=${alex.id}`)).body as Listed;
    expect(without.person).toEqual({ id: alex.id, name: "Alex Doe", email: null });
  });

  it("needs log.read", async () => {
    const manager = await signedIn(["manager"]);
    expect((await list(manager.cookie, `person=${alex.id}`)).status).toBe(403);
  });

  it("exports the same rows, with the actor's and the target's names beside their ids", async () => {
    const admin = await signedIn(["super_admin"]);
    const taskId = randomUUID();
    const now = new Date().toISOString();
    await db()
      .insertInto("task")
      .values({
        id: taskId,
        type: "audit.export",
        status: "processing",
        user_id: admin.id,
        payload: "{}",
        result: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      })
      .execute();
    const result = (await auditExport.run(auditExport.payload.parse({ person: alex.id, within: "24h" }), {
      taskId,
      userId: admin.id,
      signal: new AbortController().signal,
      progress: () => {},
    })) as { rows: number; downloadUrl: string };
    expect(result.rows).toBe(3 * 24 + 1);
    const file = await run(() =>
      downloadLoader(args(request(result.downloadUrl, { cookie: admin.cookie }), { id: taskId })),
    );
    const [header, ...lines] = String(file.body).trim().split("\r\n");
    const columns = csvCells(header!);
    const cell = (line: string, name: string) => csvCells(line)[columns.indexOf(name)];
    const about = lines.find((l) => cell(l, "target_id") === alex.id && cell(l, "actor") === other.email)!;
    expect(cell(about, "actor_name")).toBe("Olive Other");
    expect(cell(about, "target_name")).toBe("Alex Doe");
    expect(lines.filter((l) => cell(l, "actor") === namesake.email)).toEqual([]);
  });

  it("refuses an export for a malformed person instead of exporting everyone", () => {
    expect(auditExport.payload.safeParse({ person: "alex" }).success).toBe(false);
  });
});

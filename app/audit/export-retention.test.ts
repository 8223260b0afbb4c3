import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { csvCells } from "../../test/support/csv";
import { RecordingRunner } from "../../test/tasks";
import { db } from "../db.server";
import { loader as downloadLoader } from "../routes/api.tasks.$id.download";
import { purgeAuditPastRetention } from "../server/cleanup.server";
import { setSystemConfig } from "../system-settings/system-config.server";
import { createTask } from "../tasks/create-task.server";
import { auditExport } from "../tasks/definitions/audit-export.server";
import { setTaskRunner } from "../tasks/runner.server";
import { audit } from "./audit.server";
import { keyedChainHash } from "./chain";
import { chainKey } from "./signing.server";

beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(new RecordingRunner());
});

function entry(action: string, daysAgo: number, actor = "alice@example.test") {
  return {
    id: randomUUID(),
    actor_id: null,
    actor_email: actor,
    action,
    target_type: "user",
    target_id: "u",
    details: JSON.stringify({ note: `=cmd|' /C calc'!A0 ${daysAgo}` }),
    ip: "203.0.113.9",
    user_agent: "t",
    created_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
    request_id: "req-4bf92f35",
  };
}

describe("audit export", () => {
  it("is refused without log.read", async () => {
    const manager = await signedIn(["manager"]);
    const out = await createTask(
      { id: manager.id, isSuperAdmin: false, permissions: new Set(["dashboard.access"]) } as never,
      { type: "audit.export", payload: {} },
    );
    expect(out).toMatchObject({ ok: false, status: 403, permission: "log.read" });
  });

  it("refuses an impossible date when the export is asked for; no task stored", async () => {
    const admin = await signedIn(["admin"]);
    const actor = {
      id: admin.id,
      isSuperAdmin: false,
      permissions: new Set(["dashboard.access", "log.read"]),
    };
    const before = await db().selectFrom("task").select("id").execute();
    for (const payload of [{ to: "9999-99-99" }, { from: "2026-02-30" }, { from: "soon" }]) {
      const out = await createTask(actor as never, { type: "audit.export", payload });
      expect(out, JSON.stringify(payload)).toMatchObject({ ok: false, status: 400 });
    }
    expect(await db().selectFrom("task").select("id").execute()).toEqual(before);
    const ok = await createTask(actor as never, { type: "audit.export", payload: { from: "2024-02-29" } });
    expect(ok.ok).toBe(true);
  });

  it("writes the filtered rows as CSV in batches, newest first, and only log.read holders download it", async () => {
    const rows = [
      ...Array.from({ length: 4_500 }, (_, i) => entry("user.update", i / 1000)),
      entry("auth.login.failed", 1),
    ];
    for (let i = 0; i < rows.length; i += 500)
      await db()
        .insertInto("audit_log")
        .values(rows.slice(i, i + 500))
        .execute();
    const admin = await signedIn(["admin"]);
    const taskId = randomUUID();
    await db()
      .insertInto("task")
      .values({
        id: taskId,
        type: "audit.export",
        status: "processing",
        user_id: admin.id,
        payload: "{}",
        result: null,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
        completed_at: null,
      })
      .execute();
    const progress: number[] = [];
    const result = (await auditExport.run(
      auditExport.payload.parse({ action: "user.update", actor: "alice@example.test" }),
      {
        taskId,
        userId: admin.id,
        signal: new AbortController().signal,
        progress: (p) => progress.push(p),
      },
    )) as { rows: number; downloadUrl: string };
    expect(result.rows).toBe(4_500);
    expect(progress.length).toBeGreaterThan(1);

    const file = await run(() =>
      downloadLoader(args(request(result.downloadUrl, { cookie: admin.cookie }), { id: taskId })),
    );
    expect(file.status).toBe(200);
    const lines = String(file.body).trim().split(/\r?\n/);
    expect(lines[0]).toBe(
      '"time","action","actor","actor_name","target_type","target_id","target_name","ip","user_agent","details","impersonator","request_id","seq","prev_hash","hash"',
    );
    expect(lines).toHaveLength(4_501);
    // The request that wrote each row, so a row leads to its log lines (decision 026).
    expect(lines.slice(1).every((l) => l.includes(',"req-4bf92f35",'))).toBe(true);
    expect(String(file.body)).not.toContain("auth.login.failed");
    // Spreadsheet formulas in data are neutralised.
    expect(String(file.body)).not.toMatch(/,"?=cmd/);

    await db().deleteFrom("role_permission").execute();
    const { invalidateRoles } = await import("../access/role-cache.server");
    invalidateRoles();
    const revoked = await run(() =>
      downloadLoader(args(request(result.downloadUrl, { cookie: admin.cookie }), { id: taskId })),
    );
    expect(revoked.status).toBe(403);
  });
});

// The SIEM's form: one object per line with every stored field, so the chain can be recomputed
// from the file alone (app/audit/chain.ts).
it("exports JSON Lines whose rows carry their place and hashes, each recomputable from the one before", async () => {
  const admin = await signedIn(["super_admin"]);
  for (let i = 0; i < 3; i++)
    await audit(args(request("/dashboard")) as { request: Request }, {
      action: "settings.update",
      actor: { id: admin.id, email: admin.email },
      details: { changed: ["APP_NAME"], i },
    });
  const taskId = randomUUID();
  const at = new Date().toISOString();
  await db()
    .insertInto("task")
    .values({
      id: taskId,
      type: "audit.export",
      status: "processing",
      user_id: admin.id,
      payload: "{}",
      result: null,
      created_at: at,
      updated_at: at,
      completed_at: null,
    })
    .execute();
  const result = (await auditExport.run(
    auditExport.payload.parse({ action: "settings.update", format: "jsonl" }),
    {
      taskId,
      userId: admin.id,
      signal: new AbortController().signal,
      progress: () => {},
    },
  )) as { rows: number; filename: string; downloadUrl: string };
  expect(result.filename).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.jsonl$/);
  const file = await run(() =>
    downloadLoader(args(request(result.downloadUrl, { cookie: admin.cookie }), { id: taskId })),
  );
  expect(file.status).toBe(200);
  expect(file.headers.get("Content-Type")).toMatch(/^application\/x-ndjson/);
  const rows = String(file.body)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(rows).toHaveLength(3);
  for (const row of rows) {
    expect(row).toMatchObject({
      action: "settings.update",
      actor_email: admin.email,
      details: { changed: ["APP_NAME"] },
    });
    // The whole row is there: whoever holds the audit signing key recomputes its keyed link.
    expect(row.hash).toBe(
      keyedChainHash(chainKey(), row.prev_hash, { ...row, details: JSON.stringify(row.details) }),
    );
  }
  expect(auditExport.payload.safeParse({ format: "xml" }).success).toBe(false);
});

// A browser's user agent is the visitor's text: a spreadsheet that splits on `;` must not find a
// formula in it either (app/tasks/csv.ts).
it("writes a hostile user agent quoted, every formula after a separator neutralised", async () => {
  const hostile = {
    ...entry("auth.login.failed", 0, "mallory@example.test"),
    user_agent: "Mozilla;=1+1;=HYPERLINK(A1);x",
    details: '{"email":"@SUM(1,2);-3"}',
  };
  await db().insertInto("audit_log").values(hostile).execute();
  // A super admin: the test above took every permission from the other roles.
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
  const result = (await auditExport.run(auditExport.payload.parse({ actor: "mallory@example.test" }), {
    taskId,
    userId: admin.id,
    signal: new AbortController().signal,
    progress: () => {},
  })) as { rows: number; downloadUrl: string };
  const file = await run(() =>
    downloadLoader(args(request(result.downloadUrl, { cookie: admin.cookie }), { id: taskId })),
  );
  const line = String(file.body).split("\r\n")[1]!;
  // Every cell quoted; the details' JSON is compared parsed (PostgreSQL's jsonb writes it with spaces).
  const cells = csvCells(line);
  expect(cells.toSpliced(9, 1)).toEqual([
    hostile.created_at,
    "auth.login.failed",
    "mallory@example.test",
    // No such user: no name, and never the id in its place.
    "",
    "user",
    "u",
    "",
    "203.0.113.9",
    "Mozilla;'=1+1;'=HYPERLINK(A1);x",
    "",
    "req-4bf92f35",
    // Written outside the application (a fixture): no place in the chain.
    "",
    "",
    "",
  ]);
  expect(JSON.parse(cells[9]!)).toEqual({ email: "@SUM(1,2);'-3" });
  expect(line).toContain(`"Mozilla;'=1+1;'=HYPERLINK(A1);x"`);
});

describe("audit retention", () => {
  it("deletes rows older than the setting, and records that it did", async () => {
    await db().deleteFrom("audit_log").execute();
    await db()
      .insertInto("audit_log")
      .values([entry("user.update", 5), entry("user.update", 40), entry("user.update", 400)])
      .execute();
    expect(await purgeAuditPastRetention()).toBe(1); // default 365 days
    await setSystemConfig("AUDIT_RETENTION_DAYS", "30", null);
    expect(await purgeAuditPastRetention()).toBe(1);
    const left = await db().selectFrom("audit_log").select(["action"]).execute();
    expect(left.map((l) => l.action).sort()).toEqual(["audit.retention", "audit.retention", "user.update"]);
  });
});

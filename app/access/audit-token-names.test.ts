import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { csvCells } from "../../test/support/csv";
import type { AuditView } from "../audit/audit-view";
import { db } from "../db.server";
import { loader as downloadLoader } from "../routes/api.tasks.$id.download";
import { loader } from "../routes/dashboard.logs/route";
import { auditExport } from "../tasks/definitions/audit-export.server";

// A super admin's API token names are for super admins (as on the user page, users/detail). The
// audit log's rows about those tokens (created, revoked by the owner, revoked by someone else) and the CSV export keep the
// action but not the name for anyone else; the stored rows stay whole.

let superAdmin: Awaited<ReturnType<typeof signedIn>>;
let admin: Awaited<ReturnType<typeof signedIn>>;
let colleague: { id: string; email: string };
let base = Date.parse("2026-03-01T12:00:00.000Z");

const SUPER_NAMES = ["sa-deploy-key", "sa-revoked-key", "sa-taken-key"];
const COLLEAGUE_NAME = "colleague-reporting-key";

function row(over: Record<string, string | null>) {
  base -= 60_000;
  return {
    id: randomUUID(),
    actor_id: null,
    actor_email: null,
    action: "user.update",
    target_type: null,
    target_id: null,
    details: null,
    ip: "203.0.113.1",
    user_agent: "test",
    created_at: new Date(base).toISOString(),
    ...over,
  };
}

beforeAll(async () => {
  await setupDatabase();
  superAdmin = await signedIn(["super_admin"]);
  admin = await signedIn(["admin"]);
  colleague = await createUser({ roles: ["admin"] });
  await db().deleteFrom("audit_log").execute();
  const sa = { actor_id: superAdmin.id, actor_email: superAdmin.email };
  await db()
    .insertInto("audit_log")
    .values([
      row({
        ...sa,
        action: "account.api_token.create",
        target_type: "api_token",
        target_id: randomUUID(),
        details: JSON.stringify({
          name: "sa-deploy-key",
          permissions: ["user.read"],
          expiresAt: "2027-01-01",
        }),
      }),
      row({
        ...sa,
        action: "account.api_token.revoke",
        target_type: "api_token",
        target_id: randomUUID(),
        details: JSON.stringify({ name: "sa-revoked-key", id: randomUUID() }),
      }),
      // Another super admin revoked this one: the token's owner is the target.
      row({
        actor_email: "other-super@example.test",
        action: "user.api_token.revoke",
        target_type: "user",
        target_id: superAdmin.id,
        details: JSON.stringify({ name: "sa-taken-key", id: randomUUID() }),
      }),
      row({
        actor_id: colleague.id,
        actor_email: colleague.email,
        action: "account.api_token.create",
        target_type: "api_token",
        target_id: randomUUID(),
        details: JSON.stringify({
          name: COLLEAGUE_NAME,
          permissions: ["user.read"],
          expiresAt: "2027-01-01",
        }),
      }),
    ])
    .execute();
});

async function logRows(cookie: string) {
  const out = await run(() => loader(args(request("/dashboard/logs?size=200", { cookie }))));
  expect(out.status).toBe(200);
  return (out.body as { rows: AuditView[] }).rows;
}

async function exportCsv(user: { id: string; cookie: string }) {
  const taskId = randomUUID();
  const ts = new Date().toISOString();
  await db()
    .insertInto("task")
    .values({
      id: taskId,
      type: "audit.export",
      status: "processing",
      user_id: user.id,
      payload: "{}",
      result: null,
      created_at: ts,
      updated_at: ts,
      completed_at: null,
    })
    .execute();
  const result = (await auditExport.run(auditExport.payload.parse({}), {
    taskId,
    userId: user.id,
    signal: new AbortController().signal,
    progress: () => {},
  })) as { downloadUrl: string };
  const file = await run(() =>
    downloadLoader(args(request(result.downloadUrl, { cookie: user.cookie }), { id: taskId })),
  );
  expect(file.status).toBe(200);
  return String(file.body)
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((line) => csvCells(line));
}

describe("a super admin's API token names in the audit log", () => {
  it("are not in the log's loader data for an admin, who still sees the actions", async () => {
    const rows = await logRows(admin.cookie);
    const text = JSON.stringify(rows);
    for (const name of SUPER_NAMES) expect(text).not.toContain(name);
    expect(rows.map((r) => r.action).sort()).toEqual([
      "account.api_token.create",
      "account.api_token.create",
      "account.api_token.revoke",
      "user.api_token.revoke",
    ]);
    const created = rows.find(
      (r) => r.action === "account.api_token.create" && r.actor.id === superAdmin.id,
    )!;
    expect(created.details).toMatchObject({
      kind: "facts",
      facts: expect.arrayContaining([{ field: "Name", value: "[hidden]" }]),
    });
    // An admin's own kind of account: its token names stay readable.
    expect(text).toContain(COLLEAGUE_NAME);
  });

  it("are not in an admin's CSV export, which keeps every row", async () => {
    const lines = await exportCsv(admin);
    const text = JSON.stringify(lines);
    for (const name of SUPER_NAMES) expect(text).not.toContain(name);
    expect(lines).toHaveLength(4);
    expect(text).toContain(COLLEAGUE_NAME);
  });

  it("are shown to a super admin, in the log and in the CSV", async () => {
    const text = JSON.stringify(await logRows(superAdmin.cookie));
    const csv = JSON.stringify(await exportCsv(superAdmin));
    for (const name of [...SUPER_NAMES, COLLEAGUE_NAME]) {
      expect(text).toContain(name);
      expect(csv).toContain(name);
    }
  });

  it("stay whole in the stored rows", async () => {
    const stored = await db().selectFrom("audit_log").select("details").execute();
    const text = JSON.stringify(stored);
    for (const name of SUPER_NAMES) expect(text).toContain(name);
  });
});

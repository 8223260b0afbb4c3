import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { csvCells } from "../../test/support/csv";
import { roleGrants } from "../access/role-cache.server";
import { roleNamesIn } from "../access/role-labels";
import { db } from "../db.server";
import { i18nFor } from "../i18n/i18n.server";
import { loader as downloadLoader } from "../routes/api.tasks.$id.download";
import { loader } from "../routes/dashboard.logs/route";
import { auditExport } from "../tasks/definitions/audit-export.server";
import type { AuditView } from "./audit-view";
import { auditQuery } from "./query.server";
import { describeAuditRows } from "./view.server";

let admin: Awaited<ReturnType<typeof signedIn>>;
let alice: { id: string; email: string };
let percent: { id: string; email: string };
let teamId: string;
const goneId = randomUUID();
const roles: Record<string, string> = {};
let base = Date.parse("2026-03-01T12:00:00.000Z");

function row(over: Partial<Record<string, string | null>>) {
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
  admin = await signedIn(["admin"]);
  alice = await createUser({ name: "Alice Liddell", email: "wonder@example.test" });
  percent = await createUser({ name: "100% Sure_Thing", email: "odd@example.test" });
  for (const r of await db().selectFrom("role").select(["id", "name"]).execute()) roles[r.name] = r.id;
  teamId = randomUUID();
  const ts = new Date().toISOString();
  await db()
    .insertInto("team")
    .values({ id: teamId, name: "Night Shift", description: "", created_at: ts, updated_at: ts })
    .execute();
  await db().deleteFrom("audit_log").execute();
  await db()
    .insertInto("audit_log")
    .values([
      row({
        actor_id: alice.id,
        actor_email: alice.email,
        action: "user.update",
        target_type: "user",
        target_id: percent.id,
        details: JSON.stringify({
          before: { name: "x", roles: [roles.user] },
          after: { name: "x", roles: [roles.manager, roles.user] },
        }),
      }),
      row({
        actor_id: percent.id,
        actor_email: percent.email,
        action: "team.create",
        target_type: "team",
        target_id: teamId,
      }),
      row({
        actor_email: "someone@example.test",
        action: "user.delete",
        target_type: "user",
        target_id: goneId,
      }),
      row({
        actor_id: alice.id,
        actor_email: alice.email,
        action: "auth.login.succeeded",
        user_agent:
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      }),
      row({
        actor_email: "p1x@example.test",
        action: "user.invite",
        target_type: "invitation",
        target_id: "invitee@example.test",
        details: JSON.stringify({ email: "invitee@example.test", roles: ["super_admin"] }),
      }),
    ])
    .execute();
});

async function list(qs: string) {
  const out = await run(() => loader(args(request(`/dashboard/logs?${qs}`, { cookie: admin.cookie }))));
  expect(out.status).toBe(200);
  return out.body as { rows: AuditView[] };
}

describe("audit log in words", () => {
  it("labels actions and names actors and targets, linking those that still exist", async () => {
    const { rows } = await list("");
    const update = rows.find((r) => r.action === "user.update")!;
    expect(update.actionLabel).toBe("Changed roles");
    expect(update.actor).toMatchObject({ name: "Alice Liddell", email: alice.email });
    expect(update.target).toEqual({
      type: "User",
      typeKey: "user",
      id: percent.id,
      name: "100% Sure_Thing",
      href: `/dashboard/users/${percent.id}`,
    });
    const team = rows.find((r) => r.action === "team.create")!;
    expect(team.actionLabel).toBe("Created a team");
    expect(team.target).toMatchObject({ name: "Night Shift", href: `/dashboard/teams/${teamId}` });
    const deleted = rows.find((r) => r.action === "user.delete")!;
    expect(deleted.target).toEqual({ type: "User", typeKey: "user", id: goneId, name: null, href: null });
    expect(rows.find((r) => r.action === "auth.login.succeeded")!.actionLabel).toBe("Signed in");
  });

  it("names the browser and system as the sessions list does, keeping the exact string", async () => {
    const { rows } = await list("");
    const login = rows.find((r) => r.action === "auth.login.succeeded")!;
    expect(login.device).toEqual({ browser: "Chrome", os: "macOS" });
    expect(login.userAgent).toContain("Chrome/131");
    expect(rows.find((r) => r.action === "team.create")!.device).toEqual({ browser: null, os: null });
  });

  it("shows role names, not ids or keys, in a diff and in the facts", async () => {
    const { rows } = await list("");
    const update = rows.find((r) => r.action === "user.update")!;
    expect(update.details).toMatchObject({
      kind: "diff",
      changes: expect.arrayContaining([
        { key: "roles", field: "Roles", before: "User", after: "Manager, User", changed: true },
        { key: "name", field: "Name", before: "x", after: "x", changed: false },
      ]),
    });
    const invite = rows.find((r) => r.action === "user.invite")!;
    expect(JSON.stringify(invite.details)).not.toContain("super_admin");
    expect(invite.details).toMatchObject({
      kind: "facts",
      facts: expect.arrayContaining([{ field: "Roles", value: "Super Admin" }]),
    });
    expect(JSON.stringify(rows)).not.toContain(roles.manager!);
  });

  it("says details in the reader's language: labels, yes and no, settings by their label, roles by name", async () => {
    const settings = row({
      action: "settings.update",
      target_type: "system_setting",
      target_id: "APP_NAME",
      details: JSON.stringify({
        changedKeys: ["APP_NAME"],
        changes: { APP_NAME: { before: "Old", after: "New", source: "database" } },
        reauthenticated: true,
      }),
    });
    const directory = row({
      action: "directory.update",
      target_type: "directory",
      target_id: "d1",
      details: JSON.stringify({
        before: { defaultRoleId: roles.user, sendPasswordLink: false },
        after: { defaultRoleId: roles.manager, sendPasswordLink: true },
      }),
    });
    const german = i18nFor("de");
    const roleNames = roleNamesIn(german.t, (await roleGrants()).values());
    const [de, dir] = await describeAuditRows([settings, directory] as never, german, roleNames);
    expect(de!.details).toEqual({
      kind: "diff",
      changes: [{ key: "APP_NAME", field: "Name der Anwendung", before: "Old", after: "New", changed: true }],
      facts: [
        { field: "Geänderte Einstellungen", value: "Name der Anwendung" },
        { field: "Zuvor erneut angemeldet", value: "ja" },
      ],
    });
    expect(dir!.details).toMatchObject({
      changes: [
        { field: "Standardrolle", before: "Benutzer", after: "Manager", changed: true },
        { field: "Passwort-Link senden", before: "nein", after: "ja", changed: true },
      ],
    });
    const shown = [de, dir].flatMap((v) =>
      v!.details && v!.details.kind === "diff"
        ? [
            ...v!.details.changes.flatMap((c) => [c.field, c.before, c.after]),
            ...v!.details.facts.flatMap((f) => [f.field, f.value]),
          ]
        : [],
    );
    expect(shown.filter((w) => /ChangedKeys|DefaultRoleId|[{}]/.test(w))).toEqual([]);
  });

  it("matches part of the actor's name or email, case-insensitively", async () => {
    const byName = await list("actor=liddell");
    expect(byName.rows.map((r) => r.action).sort()).toEqual(["auth.login.succeeded", "user.update"]);
    const byEmail = await list("actor=WONDER@");
    expect(byEmail.rows).toHaveLength(2);
    expect((await list("actor=nobody-at-all")).rows).toEqual([]);
  });

  it("treats % and _ in the actor filter as the characters themselves", async () => {
    expect((await list("actor=100%25")).rows.map((r) => r.action)).toEqual(["team.create"]);
    expect((await list("actor=e_t")).rows.map((r) => r.action)).toEqual(["team.create"]);
    // "p_x" would match "p1x" if _ were a wildcard; "%" alone would match everyone.
    expect((await list("actor=p_x")).rows).toEqual([]);
    expect((await list("actor=%25%25")).rows).toEqual([]);
  });

  it("filters the target by its name, or by the stored id when it has no name", async () => {
    expect((await list("target=sure_th")).rows.map((r) => r.action)).toEqual(["user.update"]);
    expect((await list("target=night")).rows.map((r) => r.action)).toEqual(["team.create"]);
    expect((await list("target=invitee")).rows.map((r) => r.action)).toEqual(["user.invite"]);
    expect((await list(`target=${goneId.slice(0, 8)}`)).rows.map((r) => r.action)).toEqual(["user.delete"]);
    expect((await list(`target=user:${percent.id}`)).rows.map((r) => r.action)).toEqual(["user.update"]);
  });
});

describe("audit export", () => {
  async function exportCsv(filters: Record<string, string>) {
    const taskId = randomUUID();
    const ts = new Date().toISOString();
    await db()
      .insertInto("task")
      .values({
        id: taskId,
        type: "audit.export",
        status: "processing",
        user_id: admin.id,
        payload: JSON.stringify(filters),
        result: null,
        created_at: ts,
        updated_at: ts,
        completed_at: null,
      })
      .execute();
    const result = (await auditExport.run(auditExport.payload.parse(filters), {
      taskId,
      userId: admin.id,
      signal: new AbortController().signal,
      progress: () => {},
    })) as { downloadUrl: string };
    const file = await run(() =>
      downloadLoader(args(request(result.downloadUrl, { cookie: admin.cookie }), { id: taskId })),
    );
    return String(file.body)
      .trim()
      .split(/\r?\n/)
      .slice(1)
      .map((line) => csvCells(line).slice(0, 2).join(","));
  }

  it.each<Record<string, string>>([
    {},
    { actor: "liddell" },
    { actor: "100%" },
    { actor: "e_t", target: "night" },
    { actor: "wonder", action: "auth.login.succeeded" },
    { target: "sure" },
  ])("holds exactly the rows the list shows for %o", async (filters) => {
    const qs = new URLSearchParams({ ...filters, size: "200" });
    const listed = (await list(String(qs))).rows.map((r) => `${r.createdAt},${r.action}`);
    expect(await exportCsv(filters)).toEqual(listed);
    // The page and the export read the same filters.
    expect(auditQuery.parse(filters)).toMatchObject(filters);
  });
});

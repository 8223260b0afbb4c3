import { sql } from "kysely";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { args, context, createUser, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { deliverThroughRoute } from "../../test/tasks";
import { createRole } from "../access/roles-admin.server";
import { createApiToken } from "../auth/api-tokens.server";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../events/event-types";
import { action as tasksAction } from "../routes/api.tasks";
import { loader as download } from "../routes/api.tasks.$id.download";
import { action as userAction } from "../routes/dashboard.users.$id/route";
import { action as importAction, loader as importLoader } from "../routes/dashboard.users.import/route";
import { loader as resetLoader } from "../routes/reset-password";
import { insertTask } from "../tasks/repository.server";
import { InProcessTaskRunner } from "../tasks/runner.server";
import { planImport, runImport } from "./import.server";
import { IMPORT_MAX_ROWS, parseImportFile } from "./import-csv";

// Users → Import: the file's refusals, each row's plan, the preview equal to the run, rows that
// fail alone, invitations only when asked, and the run as a task with progress and a result file.

const postmark = withFakePostmark();
const bytes = (text: string) => new TextEncoder().encode(text);
const origin = () => ({ request: request("/dashboard/users/import"), context: context() });

async function actorOf(roles: string[]): Promise<SessionUser> {
  const user = await signedIn(roles);
  return (await getSessionUser({
    request: request("/dashboard", { cookie: user.cookie }),
    context: context(),
  }))!;
}

function rowsOf(text: string) {
  const parsed = parseImportFile(bytes(text));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problem));
  return parsed.rows;
}

beforeAll(async () => {
  await setupDatabase();
  const ts = new Date().toISOString();
  await db()
    .insertInto("team")
    .values({ id: "team-eng", name: "Engineering", description: "", created_at: ts, updated_at: ts })
    .execute();
});

describe("the file", () => {
  it("refuses what is not UTF-8 CSV with a header naming email, too many rows, and too many bytes", () => {
    const latin1 = new Uint8Array([...bytes("name,email\nJos"), 0xe9, ...bytes(",jose@example.com\n")]);
    expect(parseImportFile(latin1)).toEqual({ ok: false, problem: { key: "users.import.notUtf8" } });
    expect(parseImportFile(bytes("name,mail\nA,a@example.com\n"))).toMatchObject({
      problem: { key: "users.import.noEmailColumn" },
    });
    expect(parseImportFile(bytes("name,email\n"))).toMatchObject({ problem: { key: "users.import.empty" } });
    expect(parseImportFile(bytes('name,email\n"unclosed,a@example.com\n'))).toMatchObject({
      problem: { key: "users.import.notCsv" },
    });
    // 7 MB: within the size limit, so the row count is what refuses it.
    const million = `email\n${"a@b.cd\n".repeat(1_000_000)}`;
    expect(parseImportFile(bytes(million))).toMatchObject({
      problem: { key: "users.import.tooManyRows", values: { max: IMPORT_MAX_ROWS } },
    });
    expect(parseImportFile(new Uint8Array(50 * 1024 * 1024))).toMatchObject({
      problem: { key: "users.import.tooLarge" },
    });
  });

  it("reads a BOM, any column order, quoted cells over several lines, and lists separated by ; or |", () => {
    const rows = rowsOf(
      '\uFEFFEmail,Teams,Name,Roles\r\na@example.com,Engineering | Research,"Ann\nLee",user; manager\r\n',
    );
    expect(rows).toEqual([
      {
        line: 3,
        name: "Ann\nLee",
        email: "a@example.com",
        roles: ["user", "manager"],
        teams: ["Engineering", "Research"],
      },
    ]);
  });
});

describe("the plan", () => {
  it("creates, updates, skips and refuses row by row, each with its reason", async () => {
    const admin = await actorOf(["admin"]);
    await createUser({ name: "Same Person", email: "same@example.com", roles: ["user"] });
    await createUser({ name: "Old Name", email: "old@example.com", roles: ["user"] });
    await createUser({ name: "Boss", email: "boss@example.com", roles: ["super_admin"] });
    const plans = await planImport(
      admin,
      rowsOf(
        [
          "name,email,roles,teams",
          "New Person,new@example.com,,Engineering",
          "Same Person,same@example.com,user,",
          "New Name,old@example.com,manager,",
          "Boss Changed,boss@example.com,user,",
          "Again,new@example.com,,",
          '=HYPERLINK("x"),formula@example.com,,',
          "No Role,norole@example.com,wizard,",
          "No Team,noteam@example.com,,Nowhere",
          "Super,super@example.com,super_admin,",
          ",noname@example.com,,",
          "Bad,not-an-address,,",
        ].join("\n"),
      ),
    );
    expect(plans.map((p) => [p.line, p.outcome, p.message.key])).toEqual([
      [2, "create", "users.import.created"],
      [3, "skip", "users.import.unchanged"],
      [4, "update", "users.import.updated"],
      [5, "error", "users.import.notManageable"],
      [6, "error", "users.import.duplicate"],
      [7, "error", "users.import.formula"],
      [8, "error", "users.import.unknownRole"],
      [9, "error", "users.import.unknownTeam"],
      [10, "error", "users.import.roleNotAllowed"],
      [11, "error", "users.import.noName"],
      [12, "error", "users.import.badEmail"],
    ]);
    expect(plans[2]!.message.values).toEqual({ changes: "name, roles" });
    expect(plans[4]!.message.values).toEqual({ line: 2 });
  });

  it("refuses teams to someone who may not manage them, and roles beyond the importer's own", async () => {
    const root = await actorOf(["super_admin"]);
    await createRole(
      root,
      { name: "importer", label: "Importer", permissions: ["dashboard.access", "user.read", "user.write"] },
      origin(),
    );
    const importer = await actorOf(["importer"]);
    await createUser({ name: "Existing", email: "existing1@example.com", roles: ["user"] });
    const plans = await planImport(
      importer,
      rowsOf(
        "name,email,roles,teams\nA,a1@example.com,,Engineering\nB,b1@example.com,manager,\nC,c1@example.com,,\nRenamed,existing1@example.com,,\n",
      ),
    );
    expect(plans.map((p) => p.message.key)).toEqual([
      "users.import.teamsNotAllowed",
      "users.import.roleNotAllowed",
      "users.import.created",
      // Creating accounts is user.write's; changing existing ones is user.update's.
      "users.import.updateNotAllowed",
    ]);
  });
});

describe("the run", () => {
  it("does what the preview said; a refused row writes nothing and the others are written", async () => {
    const admin = await actorOf(["admin"]);
    await createUser({ name: "Before", email: "run-update@example.com", roles: ["user"] });
    const rows = rowsOf(
      "name,email,roles,teams\nRun New,run-new@example.com,manager,Engineering\nAfter,run-update@example.com,,\nNo Team,run-bad@example.com,,Nowhere\n",
    );
    const preview = await planImport(admin, rows);
    const done: number[] = [];
    const results = await runImport({ ...admin, name: admin.name }, rows, {
      invite: false,
      origin: origin(),
      progress: (n) => done.push(n),
    });
    expect(results.map((r) => [r.line, r.outcome, r.message.key])).toEqual(
      preview.map((p) => [p.line, p.outcome, p.message.key]),
    );
    expect(done).toEqual([3]);
    const created = await db()
      .selectFrom("user")
      .selectAll()
      .where("email", "=", "run-new@example.com")
      .executeTakeFirstOrThrow();
    expect(created).toMatchObject({
      name: "Run New",
      email_verified: 1,
      password_hash: null,
      status: "active",
    });
    const roles = await db()
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select("role.name")
      .where("user_id", "=", created.id)
      .execute();
    expect(roles.map((r) => r.name)).toEqual(["manager"]);
    expect(
      await db().selectFrom("team_member").select("team_id").where("user_id", "=", created.id).execute(),
    ).toEqual([{ team_id: "team-eng" }]);
    expect(
      (
        await db()
          .selectFrom("user")
          .select("name")
          .where("email", "=", "run-update@example.com")
          .executeTakeFirstOrThrow()
      ).name,
    ).toBe("After");
    expect(
      await db().selectFrom("user").select("id").where("email", "=", "run-bad@example.com").execute(),
    ).toEqual([]);
    const audit = await db()
      .selectFrom("audit_log")
      .select(["action", "actor_email"])
      .where("target_id", "=", created.id)
      .execute();
    expect(audit).toEqual([{ action: "user.create", actor_email: admin.email }]);
    // Run again: everything is now as the file says.
    const again = await runImport({ ...admin, name: admin.name }, rows, { invite: false, origin: origin() });
    expect(again.map((r) => r.outcome)).toEqual(["skip", "skip", "error"]);
    expect(postmark.fake.messages).toEqual([]);
  });

  it("a row the database refuses is undone alone: the rows before and after it in its batch are kept", async () => {
    const admin = await actorOf(["admin"]);
    const postgres = process.env.DATABASE_URL?.startsWith("postgres");
    if (postgres) {
      await sql`create function refuse_boom() returns trigger language plpgsql as $$
        begin if new.email = 'boom@example.com' then raise exception 'boom'; end if; return new; end $$`.execute(
        db(),
      );
      await sql`create trigger refuse_boom before insert on "user" for each row execute function refuse_boom()`.execute(
        db(),
      );
    } else {
      await sql`create trigger refuse_boom before insert on user when new.email = 'boom@example.com'
        begin select raise(abort, 'boom'); end`.execute(db());
    }
    try {
      const rows = rowsOf(
        "name,email,roles,teams\nBefore,sp-before@example.com,,Engineering\nBoom,boom@example.com,,Engineering\nAfter,sp-after@example.com,,Engineering\n",
      );
      const results = await runImport({ ...admin, name: admin.name }, rows, {
        invite: false,
        origin: origin(),
      });
      expect(results.map((r) => [r.outcome, r.message.key])).toEqual([
        ["create", "users.import.created"],
        ["error", "users.import.changed"],
        ["create", "users.import.created"],
      ]);
      const emails = await db()
        .selectFrom("user")
        .select("email")
        .where("email", "like", "%@example.com")
        .where("email", "in", ["sp-before@example.com", "boom@example.com", "sp-after@example.com"])
        .orderBy("email")
        .execute();
      expect(emails.map((e) => e.email)).toEqual(["sp-after@example.com", "sp-before@example.com"]);
      const audited = await db()
        .selectFrom("audit_log")
        .select("details")
        .where("action", "=", "user.create")
        .execute();
      expect(audited.filter((a) => a.details?.includes("boom@example.com"))).toEqual([]);
    } finally {
      await sql`drop trigger refuse_boom${sql.raw(postgres ? ' on "user"' : "")}`.execute(db());
    }
  });

  it("invites the people it creates only when asked; the link sets a password days later", async () => {
    const admin = await actorOf(["admin"]);
    const results = await runImport(
      { ...admin, name: "Ada Admin" },
      rowsOf("name,email\nInvited,invited@example.com\n"),
      {
        invite: true,
        origin: origin(),
      },
    );
    expect(results[0]!.message.key).toBe("users.import.invited");
    const mail = postmark.fake.messages.find((m) => m.To === "invited@example.com")!;
    expect(mail.Tag).toBe("invite");
    const link = linkIn(mail.TextBody, "/reset-password?token=");
    // The invitation's link outlives a reset link's hour.
    vi.useFakeTimers({ now: Date.now() + 3 * 24 * 60 * 60 * 1000, toFake: ["Date"] });
    try {
      const page = await run(() => resetLoader(args(request(new URL(link).pathname + new URL(link).search))));
      expect(JSON.stringify(page.body)).not.toContain("expired");
      expect(page.status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it("runs as a task: progress events to its owner, a result file with every row's outcome", async () => {
    const owner = await signedIn(["admin"]);
    const events: SystemEvent[] = [];
    systemBus().subscribe(SYSTEM_EVENT_CHANNEL, owner.id, (e) => events.push(e));
    const lines = Array.from({ length: 450 }, (_, i) => `Task Person ${i},task${i}@example.com,user,`);
    const rows = rowsOf(`name,email,roles,teams\n${lines.join("\n")}\nBad,bad-address,,\n`);
    const id = await insertTask({ type: "users.import", userId: owner.id, payload: { rows, invite: false } });
    const runner = new InProcessTaskRunner({ deliver: deliverThroughRoute, log: () => {} });
    runner.dispatch(id);
    await runner.idle();
    const task = await db().selectFrom("task").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(task.status).toBe("completed");
    expect(JSON.parse(task.result!)).toMatchObject({
      rows: 451,
      created: 450,
      failed: 1,
      updated: 0,
      skipped: 0,
    });
    const progress = events.filter((e) => e.type === "task-progress" && e.taskId === id);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const res = await run(() =>
      download(args(request(`/api/tasks/${id}/download`, { cookie: owner.cookie }), { id })),
    );
    const csv = (res.body as string).trimEnd().split("\r\n");
    expect(csv).toHaveLength(452);
    expect(csv[0]).toBe('"line","email","outcome","message"');
    expect(csv.at(-1)).toBe('"452","bad-address","refused","""bad-address"" is not an email address."');
  });
});

describe("the page", () => {
  const upload = (cookie: string, intent: string, file: BlobPart, name = "people.csv") => {
    const form = new FormData();
    form.set("intent", intent);
    form.set("file", new File([file], name, { type: "text/csv" }));
    return run(() =>
      importAction(
        args(
          new Request("http://localhost:3000/dashboard/users/import", {
            method: "POST",
            body: form,
            headers: { Cookie: cookie, Origin: "http://localhost:3000", "Sec-Fetch-Site": "same-origin" },
          }),
        ),
      ),
    );
  };

  it("is started from the page only: an API token cannot start users.import", async () => {
    const owner = await actorOf(["admin"]);
    const { secret } = await createApiToken(
      owner,
      { name: "narrow", permissions: ["dashboard.access", "user.write"], expiresInDays: 30 },
      origin(),
    );
    const out = await run(() =>
      tasksAction(
        args(
          request("/api/tasks", {
            method: "POST",
            headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
            body: JSON.stringify({
              type: "users.import",
              payload: {
                rows: [
                  { line: 2, name: "Via token", email: "token@example.com", roles: ["admin"], teams: [] },
                ],
              },
            }),
          }),
        ),
      ),
    );
    expect(out.status).toBe(403);
    expect(
      await db()
        .selectFrom("task")
        .select("id")
        .where("type", "=", "users.import")
        .where("user_id", "=", owner.id)
        .execute(),
    ).toEqual([]);
  });

  it("is not started while a super admin views as someone: the rows would lose the super admin's name", async () => {
    const root = await signedIn(["super_admin"]);
    const viewed = await createUser({ roles: ["admin"] });
    const view = formRequest(`/dashboard/users/${viewed.id}`, { intent: "view-as" }, { cookie: root.cookie });
    expect((await run(() => userAction(args(view, { id: viewed.id })))).status).toBe(302);
    const out = await upload(root.cookie, "import", "name,email\nViewed Import,viewed-import@example.com\n");
    expect(out.status).toBe(403);
    expect(
      await db()
        .selectFrom("task")
        .select("id")
        .where("type", "=", "users.import")
        .where("user_id", "=", viewed.id)
        .execute(),
    ).toEqual([]);
  });

  it("needs user.write", async () => {
    const manager = await signedIn(["manager"]);
    expect(
      (await run(() => importLoader(args(request("/dashboard/users/import", { cookie: manager.cookie })))))
        .status,
    ).toBe(403);
    expect((await upload(manager.cookie, "preview", "email\na@example.com\n")).status).toBe(403);
  });

  it("says an update as before → after: the name, and the roles by their names", async () => {
    const admin = await signedIn(["admin"]);
    const person = await createUser({ name: "Before Name", roles: ["user"] });
    const preview = await upload(
      admin.cookie,
      "preview",
      `name,email,roles\nAfter Name,${person.email},manager\n`,
    );
    expect(preview.body).toMatchObject({
      summary: { update: 1 },
      rows: [{ outcome: "update", message: "Name: Before Name → After Name. Roles: User → Manager." }],
    });

    // Without user.read the account's current name and roles are not shown: only what changes.
    await createRole(
      await actorOf(["super_admin"]),
      {
        name: "blind_importer",
        label: "Blind importer",
        permissions: ["dashboard.access", "user.write", "user.update"],
      },
      origin(),
    );
    const blind = await signedIn(["blind_importer"]);
    const other = await createUser({ name: "Hidden Name", roles: ["user"] });
    const unseen = await upload(blind.cookie, "preview", `name,email\nNew Name,${other.email}\n`);
    expect(JSON.stringify(unseen.body)).not.toContain("Hidden Name");
    expect(unseen.body).toMatchObject({ rows: [{ outcome: "update", message: "Updated: name." }] });
  });

  it("previews with counts and each row's reason in words, refuses a bad file, and starts the task", async () => {
    const admin = await signedIn(["admin"]);
    const preview = await upload(admin.cookie, "preview", "name,email\nPage One,page1@example.com\nX,nope\n");
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      summary: { create: 1, update: 0, skip: 0, error: 1 },
      total: 2,
      rows: [
        { line: 2, outcome: "create", message: "Created." },
        { line: 3, outcome: "error", message: '"nope" is not an email address.' },
      ],
    });
    expect(
      await db().selectFrom("user").select("id").where("email", "=", "page1@example.com").execute(),
    ).toEqual([]);
    const bad = await upload(admin.cookie, "preview", new Uint8Array([0xff, 0xfe, 0x00, 0x41]));
    expect(bad.status).toBe(400);
    expect((bad.body as { formError: string }).formError).toContain("UTF-8");
    const started = await upload(admin.cookie, "import", "name,email\nPage One,page1@example.com\n");
    const taskId = (started.body as { taskId: string }).taskId;
    const task = await db()
      .selectFrom("task")
      .select(["type", "user_id"])
      .where("id", "=", taskId)
      .executeTakeFirstOrThrow();
    expect(task).toEqual({ type: "users.import", user_id: admin.id });
  });
});

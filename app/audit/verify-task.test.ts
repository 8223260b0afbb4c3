import { beforeAll, describe, expect, it } from "vitest";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { RecordingRunner } from "../../test/tasks";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { loader as settingsMenuLoader } from "../routes/dashboard.settings/route";
import { loader as settingsLoader } from "../routes/dashboard.settings.system/route";
import { createTask } from "../tasks/create-task.server";
import { auditVerify } from "../tasks/definitions/audit-verify.server";
import { setTaskRunner } from "../tasks/runner.server";
import { audit } from "./audit.server";
import { recordHead } from "./checkpoint.server";
import { auditIntegrity } from "./integrity.server";

// Verification on demand (Settings → System): a task that only settings.manage may start, whose
// outcome is an audit row of its own and what the page shows as the last verification.

beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(new RecordingRunner());
});

const context = (userId: string, progress: number[] = []) => ({
  taskId: "t",
  userId,
  signal: new AbortController().signal,
  progress: (p: number) => progress.push(p),
});

describe("audit.verify", () => {
  it("is refused to anyone without settings.manage", async () => {
    const { cookie } = await signedIn(["manager"]);
    const manager = (await getSessionUser({ request: request("/", { cookie }) }))!;
    const out = await createTask(manager, { type: "audit.verify", payload: {} });
    expect(out).toMatchObject({ ok: false, status: 403, permission: "settings.manage" });
    expect(auditVerify.payload.safeParse({ rows: 5 }).success).toBe(false);
  });

  it("records each verification in the log; Settings shows the last, intact or not, and the last checkpoint", async () => {
    const admin = await signedIn(["admin"]);
    expect(await auditIntegrity()).toEqual({ lastVerification: null, lastCheckpointAt: null });
    await audit(args(request("/dashboard")) as { request: Request }, { action: "settings.update" });
    const checkpoint = await recordHead();

    const progress: number[] = [];
    const first = await auditVerify.run({}, context(admin.id, progress));
    expect(first).toMatchObject({ ok: true });
    expect(progress.length).toBeGreaterThan(0);
    const row = await db()
      .selectFrom("audit_log")
      .selectAll()
      .where("action", "=", "audit.verify")
      .executeTakeFirstOrThrow();
    expect(row.actor_id).toBe(admin.id);
    const integrity = await auditIntegrity();
    expect(integrity.lastCheckpointAt).toBe(checkpoint!.created_at);
    expect(integrity.lastVerification).toMatchObject({ ok: true, rows: (first as { rows: number }).rows });

    const page = await run(() =>
      settingsLoader(args(request("/dashboard/settings/system", { cookie: admin.cookie }))),
    );
    expect(page.status).toBe(200);
    expect((page.body as { integrity: unknown }).integrity).toEqual(integrity);

    // An entry changed behind the application's back: the next verification says which.
    const target = await db()
      .selectFrom("audit_log")
      .select("id")
      .orderBy("seq")
      .limit(1)
      .executeTakeFirstOrThrow();
    await db().updateTable("audit_log").set({ ip: "198.51.100.7" }).where("id", "=", target.id).execute();
    expect(await auditVerify.run({}, context(admin.id))).toMatchObject({ ok: false, problem: "edited" });
    expect((await auditIntegrity()).lastVerification).toMatchObject({
      ok: false,
      message: expect.stringContaining(target.id),
    });
  });

  it("is not in the settings data of someone who does not manage settings", async () => {
    const manager = await signedIn(["manager"]);
    // The System page (where the integrity card is) answers 403, and Settings' menu lacks it.
    const page = await run(() =>
      settingsLoader(args(request("/dashboard/settings/system", { cookie: manager.cookie }))),
    );
    expect(page.status).toBe(403);
    expect(JSON.stringify(page.body)).not.toContain("lastVerification");
    const menu = await run(() =>
      settingsMenuLoader(args(request("/dashboard/settings", { cookie: manager.cookie }))),
    );
    expect(menu.status).toBe(200);
    expect((menu.body as { workspace: string[] }).workspace).not.toContain("system");
  });
});

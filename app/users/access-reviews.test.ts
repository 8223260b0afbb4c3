import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { args, createUser, request, run, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { RecordingRunner } from "../../test/tasks";
import { flushPermissionUse } from "../access/permission-use.server";
import { createRole } from "../access/roles-admin.server";
import { answerProblem } from "../api-docs/check-answer";
import { evidenceSeals, verifyAuditChain } from "../audit/verify.server";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import * as reviewsRoute from "../routes/api.access-reviews";
import * as reviewRoute from "../routes/api.access-reviews.$id";
import * as closeRoute from "../routes/api.access-reviews.$id.close";
import * as evidenceRoute from "../routes/api.access-reviews.$id.evidence";
import * as itemRoute from "../routes/api.access-reviews.$id.items.$itemId";
import { loader as usersLoader } from "../routes/dashboard.users/route";
import { closeOverdueReviews } from "../tasks/access-review-apply.server";
import { createTask } from "../tasks/create-task.server";
import { TaskError } from "../tasks/definition.server";
import { accessReviewClose } from "../tasks/definitions/access-review-close.server";
import { setTaskRunner } from "../tasks/runner.server";

// Access reviews (docs/http-contract.md, "Access reviews"; SECURITY-PLAYBOOK §5-6): a review of a
// role lists each grant with when its permissions were last used; deciders keep or revoke, never
// their own; closing revokes through a task and seals the evidence's SHA-256 in the audit chain.

type Person = { id: string; email: string; cookie: string };
let superAdmin: Person;
let admin: Person;
let otherAdmin: Person;
let rolesOnly: Person;
let managers: Person[];
let runner: RecordingRunner;

async function person(roles: string[]): Promise<Person> {
  const u = await createUser({ roles });
  return { id: u.id, email: u.email, cookie: await sessionCookieFor(u.id) };
}

type Body = Record<string, unknown> & { items?: Item[] };
type Item = {
  id: string;
  user: { id: string; email: string };
  lastUsedAt: string | null;
  mayDecide: boolean;
};

async function call(method: "GET" | "POST", path: string, who: Person, body?: unknown) {
  const [, , , id, sub, itemId] = path.split("/");
  const params: Record<string, string> = {};
  if (id) params.id = id;
  if (itemId) params.itemId = itemId;
  const req = request(path, {
    cookie: who.cookie,
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
  });
  const handler = !id
    ? method === "GET"
      ? reviewsRoute.loader
      : reviewsRoute.action
    : sub === "items"
      ? itemRoute.action
      : sub === "close"
        ? closeRoute.action
        : sub === "evidence"
          ? evidenceRoute.loader
          : reviewRoute.loader;
  const res = await run(() => (handler as (a: never) => unknown)(args(req, params) as never));
  // Every answer is one the API description allows (app/api-docs).
  expect(answerProblem(method, path, res.status, res.body), `${method} ${path}`).toBeNull();
  return res as { status: number; body: Body; text?: string; headers?: Headers };
}

const inADay = () => new Date(Date.now() + 86_400_000).toISOString();
const open = (who: Person, body: Record<string, unknown>) =>
  call("POST", "/api/access-reviews", who, { dueAt: inADay(), onOverdue: "keep", ...body });
const decide = (who: Person, review: string, item: string, decision: string) =>
  call("POST", `/api/access-reviews/${review}/items/${item}`, who, { decision });
const itemOf = (review: Body, who: Person) => review.items!.find((i) => i.user.id === who.id)!;
const grantsOf = async (who: Person) =>
  db().selectFrom("user_role").select("id").where("user_id", "=", who.id).execute();

/** What the task does once the runner takes it. */
async function runClose(reviewId: string, closer: Person, taskId: string) {
  return accessReviewClose.run(
    { review: reviewId },
    { taskId, userId: closer.id, signal: new AbortController().signal, progress: () => {} },
  );
}

beforeAll(async () => {
  await setupDatabase();
  runner = new RecordingRunner();
  setTaskRunner(runner);
  superAdmin = await person(["super_admin"]);
  admin = await person(["admin"]);
  otherAdmin = await person(["admin"]);
  managers = [await person(["manager"]), await person(["manager"]), await person(["manager"])];
  await createRole(
    { id: superAdmin.id, email: superAdmin.email, isSuperAdmin: true, permissions: new Set() },
    { name: "roles_only", label: "Roles only", permissions: ["dashboard.access", "roles.manage"] },
    { request: new Request("http://localhost/") },
  );
  rolesOnly = await person(["roles_only"]);
});

describe("a review of the manager role", () => {
  it("lists each manager with last use, is decided by others, closes through a task and seals its evidence", async () => {
    // One manager uses the users list: noted in memory, written once by the minute's flush.
    const used = managers[0]!;
    for (let i = 0; i < 3; i++)
      expect(
        (await run(() => usersLoader(args(request("/dashboard/users", { cookie: used.cookie }))))).status,
      ).toBe(200);
    expect(
      await db().selectFrom("permission_use").selectAll().where("user_id", "=", used.id).execute(),
    ).toEqual([]);
    expect(await flushPermissionUse()).toBeGreaterThan(0);

    const created = await open(admin, { name: "Q4 managers", role: "manager", onOverdue: "keep" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "open", counts: { items: 3, undecided: 3 } });
    expect(created.body.items!.map((i) => i.user.id).sort()).toEqual(managers.map((m) => m.id).sort());
    expect(itemOf(created.body, used).lastUsedAt).not.toBeNull();
    expect(itemOf(created.body, managers[1]!).lastUsedAt).toBeNull();
    const id = created.body.id as string;

    // A person with roles.manage but not the manager role's permissions may read, not decide.
    const [keep, revoke, undecided] = managers.map((m) => itemOf(created.body, m).id);
    expect((await decide(rolesOnly, id, revoke!, "revoke")).status).toBe(403);
    expect((await decide(managers[0]!, id, keep!, "keep")).status).toBe(403);
    expect((await decide(admin, id, "00000000-0000-4000-8000-000000000000", "keep")).status).toBe(404);
    expect((await decide(admin, id, keep!, "maybe")).status).toBe(400);
    const kept = await decide(admin, id, keep!, "keep");
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ decision: "keep", decidedBy: { id: admin.id } });
    expect((await decide(otherAdmin, id, revoke!, "revoke")).body).toMatchObject({ decision: "revoke" });

    const closing = await call("POST", `/api/access-reviews/${id}/close`, admin);
    expect(closing.status).toBe(202);
    const taskId = closing.body.taskId as string;
    // Once closing: a second close and any decision are refused.
    expect((await call("POST", `/api/access-reviews/${id}/close`, otherAdmin)).status).toBe(409);
    expect((await decide(otherAdmin, id, undecided!, "revoke")).status).toBe(409);
    expect((await call("GET", `/api/access-reviews/${id}/evidence`, admin)).status).toBe(409);

    const revokedGrant = (await grantsOf(managers[1]!))[0]!.id;
    const result = await runClose(id, admin, taskId);
    // The undecided item follows the overdue rule (keep).
    expect(result).toMatchObject({ revoked: 1, kept: 2, gone: 0, refused: 0 });
    expect(await grantsOf(managers[1]!)).toEqual([]);
    expect(await grantsOf(managers[0]!)).toHaveLength(1);
    expect(await grantsOf(managers[2]!)).toHaveLength(1);
    const revocation = await db()
      .selectFrom("audit_log")
      .select(["actor_id", "details"])
      .where("action", "=", "user.role.revoke")
      .where("target_id", "=", managers[1]!.id)
      .executeTakeFirstOrThrow();
    // Revoked as the person who decided it, under their rules as they are at the close.
    expect(revocation.actor_id).toBe(otherAdmin.id);
    expect(JSON.parse(revocation.details!)).toMatchObject({ grant: revokedGrant, role: "manager" });

    const closed = await call("GET", `/api/access-reviews/${id}`, admin);
    expect(closed.body).toMatchObject({ status: "closed", counts: { keep: 2, revoke: 1, undecided: 0 } });
    expect(itemOf(closed.body, managers[1]!)).toMatchObject({ outcome: "revoked", mayDecide: false });

    // The file an auditor is handed: its hash is the one the closing row sealed into the chain.
    const evidence = await call("GET", `/api/access-reviews/${id}/evidence`, admin);
    expect(evidence.status).toBe(200);
    const csv = evidence.body as unknown as string;
    expect(csv.split("\r\n")[0]).toContain('"user_email"');
    expect(csv).toContain(managers[1]!.email);
    const sha256 = createHash("sha256").update(csv, "utf8").digest("hex");
    expect(closed.body.evidenceSha256).toBe(sha256);
    const seals = await evidenceSeals(sha256);
    expect(seals).toHaveLength(1);
    expect(seals[0]!.target_id).toBe(id);
    expect(await verifyAuditChain()).toMatchObject({ ok: true });
    // One edited cell: no row seals that file.
    const edited = csv.replace('"revoke"', '"keep"');
    expect(await evidenceSeals(createHash("sha256").update(edited).digest("hex"))).toEqual([]);
    const actions = (
      await db().selectFrom("audit_log").select("action").where("target_id", "=", id).execute()
    ).map((r) => r.action);
    expect(actions).toEqual([
      "access_review.created",
      "access_review.decided",
      "access_review.decided",
      "access_review.closed",
    ]);
  });
});

describe("the insider and bad input", () => {
  it("refuses one's own grant, a review without roles.manage, and a review of nothing or due in the past", async () => {
    const review = await open(admin, { name: "Admins", role: "admin" });
    expect(review.status).toBe(201);
    const id = review.body.id as string;
    // An admin whose own grant is under review decides the others', never their own.
    expect(itemOf(review.body, admin).mayDecide).toBe(false);
    expect(itemOf(review.body, otherAdmin).mayDecide).toBe(true);
    const own = await decide(admin, id, itemOf(review.body, admin).id, "keep");
    expect(own.status).toBe(403);
    expect(own.body.message).toMatch(/own access/);
    expect((await open(managers[2]!, { name: "x", role: "manager" })).status).toBe(403);
    expect((await call("GET", "/api/access-reviews", managers[2]!)).status).toBe(403);
    expect((await open(admin, { name: "Nothing" })).status).toBe(400);
    expect((await open(admin, { name: "Past", role: "manager", dueAt: "2020-01-01T00:00:00Z" })).status).toBe(
      400,
    );
    expect((await open(admin, { name: "Unknown", role: "no_such_role" })).status).toBe(400);
    expect((await open(admin, { name: "\u202eevil", role: "manager" })).status).toBe(400);
    expect((await open(admin, { name: "x", role: "manager", extra: 1 })).status).toBe(400);
    expect((await call("GET", "/api/access-reviews/not-a-uuid", admin)).status).toBe(404);
  });

  it("runs a close only for the review that claimed it: a task started by hand changes nothing", async () => {
    const review = await open(admin, { name: "By hand", role: "manager", onOverdue: "revoke" });
    const id = review.body.id as string;
    const actor = (await getSessionUser({ request: request("/", { cookie: admin.cookie }) }))!;
    const forged = await createTask(actor, { type: "access_review.close", payload: { review: id } });
    expect(forged.ok).toBe(true);
    await expect(runClose(id, admin, (forged as { taskId: string }).taskId)).rejects.toBeInstanceOf(
      TaskError,
    );
    expect((await call("GET", `/api/access-reviews/${id}`, admin)).body).toMatchObject({ status: "open" });
    expect(await grantsOf(managers[2]!)).toHaveLength(1);
  });
});

describe("decisions that outlive their decider, and a close that failed", () => {
  it("does not revoke for a decider who lost the role since, and a failed close can be closed again", async () => {
    const decider = await person(["admin"]);
    const holder = await person(["manager"]);
    const review = await open(admin, { name: "Outlived", role: "manager", team: undefined });
    const id = review.body.id as string;
    expect((await decide(decider, id, itemOf(review.body, holder).id, "revoke")).status).toBe(200);
    // The decider is no longer an admin when the review closes: the closer's authority does not stand in.
    await db().deleteFrom("user_role").where("user_id", "=", decider.id).execute();
    const closing = await call("POST", `/api/access-reviews/${id}/close`, admin);
    const taskId = closing.body.taskId as string;
    // The task fails before it runs (a timeout, a crash): the review is stranded "closing"…
    await db().updateTable("task").set({ status: "failed" }).where("id", "=", taskId).execute();
    expect((await call("GET", `/api/access-reviews/${id}`, admin)).body).toMatchObject({ status: "closing" });
    // …and a new close claims it again and carries on.
    const again = await call("POST", `/api/access-reviews/${id}/close`, admin);
    expect(again.status).toBe(202);
    await runClose(id, admin, again.body.taskId as string);
    const closed = await call("GET", `/api/access-reviews/${id}`, admin);
    expect(itemOf(closed.body, holder)).toMatchObject({ decision: "revoke", outcome: "refused" });
    expect(await grantsOf(holder)).toHaveLength(1);
    await db().deleteFrom("user_role").where("user_id", "=", holder.id).execute();
  });
});

describe("a review past its due date", () => {
  it("is closed by the daily cleanup by its overdue rule, with the evidence sealed", async () => {
    const revoking = await open(admin, { name: "Overdue, revoke", role: "manager", onOverdue: "revoke" });
    const keeping = await open(admin, { name: "Overdue, keep", role: "admin", onOverdue: "keep" });
    const before = await grantsOf(managers[2]!);
    expect(before).toHaveLength(1);
    // The "By hand" review above is still open and not yet due: it is left alone.
    await db()
      .updateTable("access_review")
      .set({ due_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "in", [revoking.body.id as string, keeping.body.id as string])
      .execute();
    expect(await closeOverdueReviews()).toBe(2);
    expect(await grantsOf(managers[2]!)).toEqual([]);
    expect(await grantsOf(otherAdmin)).toHaveLength(1);
    const after = await call("GET", "/api/access-reviews", admin);
    const statuses = Object.fromEntries(
      (after.body.reviews as { name: string; status: string; evidenceSha256: string | null }[]).map((r) => [
        r.name,
        [r.status, Boolean(r.evidenceSha256)],
      ]),
    );
    expect(statuses).toMatchObject({
      "Overdue, revoke": ["closed", true],
      "Overdue, keep": ["closed", true],
      "By hand": ["open", false],
    });
    expect(await closeOverdueReviews()).toBe(0);
  });
});

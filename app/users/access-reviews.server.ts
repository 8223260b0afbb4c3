import { randomUUID } from "node:crypto";
import type { ExpressionBuilder } from "kysely";
import type { z } from "zod";
import type { Database, ReviewDecision } from "../../db/schema";
import type {
  accessReviewInput,
  ReviewItemView,
  ReviewSummary,
  ReviewView,
} from "../access/access-review-schemas";
import { lastUses } from "../access/permission-use.server";
import { type RoleGrant, roleGrants } from "../access/role-cache.server";
import { mayDecideGrant } from "../access/rules.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db, type Executor, now } from "../db.server";
import { Conflict, InvalidInput, NotFound, RuleViolation } from "../domain-errors";

// Access reviews (docs/decisions/048-access-reviews.md): someone with roles.manage opens a review
// over a role's or a team's grants; each live grant becomes an item, kept as it was then. Deciders
// keep or revoke items, never their own, and only where they hold the role themselves. Closing
// (a background task, app/tasks/access-review-close.server.ts) applies the revocations and seals
// the evidence; the daily cleanup closes a review past its due date by its overdue rule.

/** More grants than this in one review is several reviews. */
const MAX_REVIEW_ITEMS = 5_000;
const LIST_LIMIT = 100;

type Reviewer = Pick<SessionUser, "id" | "isSuperAdmin" | "grants"> & { permissions: ReadonlySet<string> };

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

export async function createAccessReview(
  actor: SessionUser,
  input: z.infer<typeof accessReviewInput>,
  origin: AuditOrigin,
): Promise<ReviewView> {
  const roles = await roleGrants();
  const role = input.role ? [...roles.values()].find((r) => r.name === input.role) : undefined;
  if (input.role && !role) throw new InvalidInput("access.grant.roleUnknown", "role");
  const team = input.team
    ? await db().selectFrom("team").select(["id", "name"]).where("id", "=", input.team).executeTakeFirst()
    : undefined;
  if (input.team && !team) throw new InvalidInput("access.grant.teamUnknown", "team");
  const ts = now();
  let grants = db()
    .selectFrom("user_role as g")
    .innerJoin("user as u", "u.id", "g.user_id")
    .leftJoin("team as t", "t.id", "g.team_id")
    .select([
      "g.id",
      "g.user_id",
      "g.role_id",
      "g.team_id",
      "g.granted_by",
      "g.granted_at",
      "g.expires_at",
      "u.email",
      "u.name",
      "t.name as team_name",
    ])
    .where((eb) => eb.or([eb("g.expires_at", "is", null), eb("g.expires_at", ">", ts)]))
    .orderBy("u.email")
    .orderBy("g.id")
    .limit(MAX_REVIEW_ITEMS + 1);
  if (role) grants = grants.where("g.role_id", "=", role.id);
  if (team) grants = grants.where("g.team_id", "=", team.id);
  const rows = await grants.execute();
  if (rows.length > MAX_REVIEW_ITEMS)
    throw new InvalidInput("access.review.tooLarge", "role", { max: MAX_REVIEW_ITEMS });
  const id = randomUUID();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("access_review")
        .values({
          id,
          name: input.name,
          role_id: role?.id ?? null,
          team_id: team?.id ?? null,
          due_at: new Date(input.dueAt).toISOString(),
          on_overdue: input.onOverdue,
          status: "open",
          created_by: actor.id,
          created_at: ts,
        })
        .execute();
      const items = rows.map((g) => ({
        id: randomUUID(),
        review_id: id,
        grant_id: g.id,
        user_id: g.user_id,
        user_email: g.email,
        user_name: g.name,
        role_id: g.role_id,
        role_name: roles.get(g.role_id)?.name ?? g.role_id,
        team_id: g.team_id,
        team_name: g.team_name,
        granted_by: g.granted_by,
        granted_at: iso(g.granted_at),
        expires_at: iso(g.expires_at),
      }));
      for (let i = 0; i < items.length; i += 200)
        await trx
          .insertInto("access_review_item")
          .values(items.slice(i, i + 200))
          .execute();
      await audit(
        origin,
        {
          action: "access_review.created",
          actor,
          target: { type: "access_review", id },
          details: {
            name: input.name,
            role: role?.name ?? null,
            team: team ? { id: team.id, name: team.name } : null,
            dueAt: new Date(input.dueAt).toISOString(),
            onOverdue: input.onOverdue,
            items: items.length,
          },
        },
        trx,
      );
    });
  return getAccessReview(actor, id);
}

function summaryQuery() {
  return db()
    .selectFrom("access_review as r")
    .leftJoin("user as c", "c.id", "r.created_by")
    .leftJoin("team as t", "t.id", "r.team_id")
    .select([
      "r.id",
      "r.name",
      "r.role_id",
      "r.team_id",
      "r.due_at",
      "r.on_overdue",
      "r.status",
      "r.created_by",
      "r.created_at",
      "r.closed_at",
      "r.evidence_sha256",
      "r.task_id",
      "c.name as creator_name",
      "t.name as team_name",
    ])
    .select((eb) => [
      eb
        .selectFrom("access_review_item as i")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("i.review_id", "=", "r.id")
        .as("items"),
      eb
        .selectFrom("access_review_item as i")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("i.review_id", "=", "r.id")
        .where("i.decision", "=", "keep")
        .as("keep"),
      eb
        .selectFrom("access_review_item as i")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("i.review_id", "=", "r.id")
        .where("i.decision", "=", "revoke")
        .as("revoke"),
    ]);
}

type SummaryRow = Awaited<ReturnType<ReturnType<typeof summaryQuery>["executeTakeFirstOrThrow"]>>;

function summary(r: SummaryRow, roles: Map<string, RoleGrant>): ReviewSummary {
  const role = r.role_id ? roles.get(r.role_id) : undefined;
  const [items, keep, revoke] = [r.items, r.keep, r.revoke].map(Number) as [number, number, number];
  return {
    id: r.id,
    name: r.name,
    role: role ? { name: role.name, label: role.label } : null,
    team: r.team_id ? { id: r.team_id, name: r.team_name ?? "" } : null,
    dueAt: iso(r.due_at)!,
    onOverdue: r.on_overdue,
    status: r.status,
    createdBy: r.created_by ? { id: r.created_by, name: r.creator_name ?? "" } : null,
    createdAt: iso(r.created_at)!,
    closedAt: iso(r.closed_at),
    evidenceSha256: r.evidence_sha256,
    taskId: r.task_id,
    counts: { items, keep, revoke, undecided: items - keep - revoke },
  };
}

export async function listAccessReviews(): Promise<ReviewSummary[]> {
  const [rows, roles] = await Promise.all([
    summaryQuery().orderBy("r.created_at", "desc").orderBy("r.id").limit(LIST_LIMIT).execute(),
    roleGrants(),
  ]);
  return rows.map((r) => summary(r, roles));
}

async function reviewItems(reviewId: string) {
  return db()
    .selectFrom("access_review_item as i")
    .leftJoin("user as g", "g.id", "i.granted_by")
    .leftJoin("user as d", "d.id", "i.decided_by")
    .selectAll("i")
    .select(["g.name as granter_name", "d.name as decider_name"])
    .where("i.review_id", "=", reviewId)
    .orderBy("i.user_email")
    .orderBy("i.id")
    .execute();
}

export async function getAccessReview(reader: Reviewer, id: string): Promise<ReviewView> {
  const [row, roles] = await Promise.all([
    summaryQuery().where("r.id", "=", id).executeTakeFirst(),
    roleGrants(),
  ]);
  if (!row) throw new NotFound("access.review.gone");
  const items = await reviewItems(id);
  const uses = await lastUses([...new Set(items.map((i) => i.user_id))]);
  const open = row.status === "open";
  return {
    ...summary(row, roles),
    items: items.map((i): ReviewItemView => {
      const role = roles.get(i.role_id);
      return {
        id: i.id,
        user: { id: i.user_id, name: i.user_name, email: i.user_email },
        role: { name: role?.name ?? i.role_name, label: role?.label ?? i.role_name },
        team: i.team_id ? { id: i.team_id, name: i.team_name ?? "" } : null,
        grantedBy: i.granted_by ? { id: i.granted_by, name: i.granter_name ?? "" } : null,
        grantedAt: iso(i.granted_at),
        expiresAt: iso(i.expires_at),
        lastUsedAt: lastUseOf(uses.get(i.user_id), role),
        decision: i.decision,
        decidedBy: i.decided_by ? { id: i.decided_by, name: i.decider_name ?? "" } : null,
        decidedAt: iso(i.decided_at),
        outcome: i.outcome,
        mayDecide: open && mayDecideGrant(reader, i, role),
      };
    }),
  };
}

/** The latest use of any permission the role gives; a role that gives everything, of any. */
function lastUseOf(uses: Map<string, string> | undefined, role: RoleGrant | undefined): string | null {
  if (!uses || !role) return null;
  let latest: string | null = null;
  for (const [permission, at] of uses)
    if ((role.all || role.permissions.has(permission)) && (!latest || at > latest)) latest = at;
  return latest;
}

/**
 * Keep or revoke items of an open review. One item (the API) refuses with 403 or 404; several (the
 * page's bulk act) decide those the actor may and report the rest, refusing only when none may.
 */
export async function decideReviewItems(
  actor: SessionUser,
  reviewId: string,
  itemIds: string[],
  decision: ReviewDecision,
  origin: AuditOrigin,
): Promise<{ decided: number; refused: number }> {
  const review = await db()
    .selectFrom("access_review")
    .select(["id", "status"])
    .where("id", "=", reviewId)
    .executeTakeFirst();
  if (!review) throw new NotFound("access.review.gone");
  if (review.status !== "open") throw new Conflict("access.review.notOpen");
  const ids = [...new Set(itemIds)];
  const items = await db()
    .selectFrom("access_review_item")
    .select(["id", "user_id", "user_email", "role_id", "role_name", "team_id"])
    .where("review_id", "=", reviewId)
    .where("id", "in", ids)
    .execute();
  if (items.length === 0) throw new NotFound("access.review.itemGone");
  const roles = await roleGrants();
  const allowed = items.filter((i) => mayDecideGrant(actor, i, roles.get(i.role_id)));
  if (allowed.length === 0) {
    if (items.some((i) => i.user_id === actor.id)) throw new RuleViolation("access.review.own");
    throw new RuleViolation("access.review.decide", { role: roles.get(items[0]!.role_id)?.label ?? "" });
  }
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      // Only while the review is open: a close that claimed it first wins.
      const still = await trx
        .updateTable("access_review")
        .set({ status: "open" })
        .where("id", "=", reviewId)
        .where("status", "=", "open")
        .executeTakeFirst();
      if (Number(still.numUpdatedRows) === 0) throw new Conflict("access.review.notOpen");
      await trx
        .updateTable("access_review_item")
        .set({ decision, decided_by: actor.id, decided_at: ts })
        .where(
          "id",
          "in",
          allowed.map((i) => i.id),
        )
        .execute();
      await audit(
        origin,
        {
          action: "access_review.decided",
          actor,
          target: { type: "access_review", id: reviewId },
          details: {
            decision,
            items: allowed.map((i) => ({ id: i.id, user: i.user_email, role: i.role_name, team: i.team_id })),
          },
        },
        trx,
      );
    });
  return { decided: allowed.length, refused: items.length - allowed.length };
}

/**
 * Open, or stranded while closing: its close task failed (or the cleanup that closed it stopped
 * half way). A close carries on from the outcomes already recorded.
 */
function closable(eb: ExpressionBuilder<Database, "access_review">) {
  return eb.or([
    eb("status", "=", "open"),
    eb.and([
      eb("status", "=", "closing"),
      eb.or([
        eb("task_id", "is", null),
        eb("task_id", "in", eb.selectFrom("task").select("task.id").where("task.status", "=", "failed")),
      ]),
    ]),
  ]);
}

export async function mayClose(reviewId: string): Promise<boolean> {
  const review = await db()
    .selectFrom("access_review")
    .select("id")
    .where("id", "=", reviewId)
    .executeTakeFirst();
  if (!review) throw new NotFound("access.review.gone");
  return Boolean(
    await db()
      .selectFrom("access_review")
      .select("id")
      .where("id", "=", reviewId)
      .where(closable)
      .executeTakeFirst(),
  );
}

/**
 * Claims the review for a close: in the close task's own transaction (`taskId`), or for the daily
 * cleanup (null). Of two closes at once one claims it, the other hears 409.
 */
export async function claimReviewClose(executor: Executor, reviewId: string, taskId: string | null) {
  const claimed = await executor
    .updateTable("access_review")
    .set({ status: "closing", task_id: taskId })
    .where("id", "=", reviewId)
    .where(closable)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) throw new Conflict("access.review.notOpen");
}

/** Past due and still open, or stranded closing: the daily cleanup closes these by their overdue rule. */
export async function overdueReviews(at = new Date()) {
  return db()
    .selectFrom("access_review")
    .select(["id", "created_by", "on_overdue"])
    .where("due_at", "<=", at.toISOString())
    .where(closable)
    .execute();
}

export async function reviewEvidence(reviewId: string) {
  return db()
    .selectFrom("access_review")
    .select(["name", "evidence_csv", "evidence_sha256"])
    .where("id", "=", reviewId)
    .executeTakeFirst();
}

import { createHash } from "node:crypto";
import { auditViewerOf } from "../access/audit-token-names.server";
import { audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { Conflict, InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { claimReviewClose, getAccessReview, overdueReviews } from "../users/access-reviews.server";
import { revokeGrant } from "../users/grants.server";
import { toCsv } from "./csv";

// Closing an access review (docs/decisions/048-access-reviews.md): the revocations run in the
// background with progress (the access_review.close task), or in the daily cleanup for a review
// past due. Either way every item gets an outcome, and the evidence (every item, decision, decider
// and time) is written as CSV whose SHA-256 goes into the audit chain with the closing row.

export const REVIEW_CLOSE_TASK = "access_review.close";

const origin = {
  request: new Request("http://internal/access-review", { headers: { "User-Agent": "access-review" } }),
};

const EVIDENCE_HEADER = [
  "review_id",
  "review_name",
  "item_id",
  "user_id",
  "user_email",
  "role",
  "team",
  "granted_by",
  "granted_at",
  "expires_at",
  "last_used_at",
  "decision",
  "decided_by",
  "decided_at",
  "outcome",
];

/**
 * Applies a review being closed: each item's decision, revoking through the grants module as the
 * person who decided it (their rules now: a grant the directory owns, the last super admin, whom
 * they may manage); an undecided item follows the overdue rule, applied as `closerId` (who closed
 * it, or who opened it for the daily cleanup). Then seals the evidence. Returns its hash.
 */
export async function applyReview(
  reviewId: string,
  closerId: string | null,
  progress: (fraction: number, message?: string) => void = () => {},
  signal?: AbortSignal,
): Promise<{ sha256: string; revoked: number; kept: number; gone: number; refused: number }> {
  const row = await db()
    .selectFrom("access_review")
    .selectAll()
    .where("id", "=", reviewId)
    .executeTakeFirst();
  if (!row) throw new NotFound("access.review.gone");
  const actors = new Map<string, Promise<Actor | null>>();
  const actorOf = (id: string | null) => {
    if (!id) return Promise.resolve(null);
    if (!actors.has(id)) actors.set(id, loadActor(id));
    return actors.get(id)!;
  };
  const actor = await actorOf(closerId);
  const items = await db()
    .selectFrom("access_review_item")
    .selectAll()
    .where("review_id", "=", reviewId)
    .orderBy("user_email")
    .orderBy("id")
    .execute();
  const counts = { revoked: 0, kept: 0, gone: 0, refused: 0 };
  let done = 0;
  for (const item of items) {
    signal?.throwIfAborted();
    const decision = item.decision ?? row.on_overdue;
    let outcome: keyof typeof counts;
    if (item.outcome) outcome = item.outcome as keyof typeof counts;
    else if (decision === "keep") outcome = "kept";
    else outcome = await revoke(await actorOf(item.decision ? item.decided_by : closerId), item);
    counts[outcome] += 1;
    await db()
      .updateTable("access_review_item")
      .set({
        outcome,
        ...(item.decision ? {} : { decision, decided_at: now() }),
      })
      .where("id", "=", item.id)
      .execute();
    done += 1;
    if (done % 20 === 0 || done === items.length)
      progress(Math.min(0.95, done / Math.max(1, items.length)), `${done} of ${items.length}`);
  }
  // The evidence: each item's last use, decision, decider and outcome.
  const view = await getAccessReview(
    actor ?? { id: "", isSuperAdmin: false, permissions: new Set<string>(), grants: [] },
    reviewId,
  );
  const csv = toCsv([
    EVIDENCE_HEADER,
    ...view.items.map((i) => [
      view.id,
      view.name,
      i.id,
      i.user.id,
      i.user.email,
      i.role.name,
      i.team ? i.team.name : "",
      i.grantedBy?.id ?? "",
      i.grantedAt ?? "",
      i.expiresAt ?? "",
      i.lastUsedAt ?? "",
      i.decision ?? "",
      i.decidedBy?.id ?? "",
      i.decidedAt ?? "",
      i.outcome ?? "",
    ]),
  ]);
  const sha256 = createHash("sha256").update(csv, "utf8").digest("hex");
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("access_review")
        .set({
          status: "closed",
          closed_by: closerId,
          closed_at: now(),
          evidence_csv: csv,
          evidence_sha256: sha256,
        })
        .where("id", "=", reviewId)
        .execute();
      await audit(
        origin,
        {
          action: "access_review.closed",
          ...(actor ? { actor } : {}),
          target: { type: "access_review", id: reviewId },
          details: {
            name: row.name,
            sha256,
            filename: evidenceFilename(row.name),
            items: items.length,
            ...counts,
          },
        },
        trx,
      );
    });
  progress(1, `${items.length} of ${items.length}`);
  return { sha256, ...counts };
}

export function evidenceFilename(name: string) {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 60) || "review";
  return `access-review-${slug}.csv`;
}

type Item = { grant_id: string; user_id: string; role_id: string; team_id: string | null };
type Actor = Awaited<ReturnType<typeof auditViewerOf>> & { email: string; name: string };

/** A person as they are now: their grants, and the name and email their audit rows carry. */
async function loadActor(userId: string): Promise<Actor | null> {
  const person = await db()
    .selectFrom("user")
    .select(["email", "name"])
    .where("id", "=", userId)
    .executeTakeFirst();
  return person ? { ...(await auditViewerOf(userId)), email: person.email, name: person.name } : null;
}

async function revoke(actor: Actor | null, item: Item): Promise<"revoked" | "gone" | "refused"> {
  const live = await db()
    .selectFrom("user_role")
    .select("id")
    .where("id", "=", item.grant_id)
    .where("user_id", "=", item.user_id)
    .where("role_id", "=", item.role_id)
    .executeTakeFirst();
  if (!live) return "gone";
  if (!actor) return "refused";
  try {
    await revokeGrant(actor, item.user_id, item.grant_id, origin);
    return "revoked";
  } catch (error) {
    // The grant ended in between; any other "not found" is a person out of the actor's reach.
    if (error instanceof NotFound) return error.said.key === "access.grant.gone" ? "gone" : "refused";
    if (error instanceof RuleViolation || error instanceof InvalidInput || error instanceof Conflict)
      return "refused";
    throw error;
  }
}

/**
 * Daily: reviews past due are closed by their overdue rule, acting as whoever opened them; one
 * stranded half way (a crash, a failed close task) is carried on. One review's failure is reported
 * and the others still close.
 */
export async function closeOverdueReviews(
  at = new Date(),
  onError: (reviewId: string, error: unknown) => void = (id, error) =>
    console.error(`[access-review] closing overdue review ${id} failed: ${String(error)}`),
): Promise<number> {
  let closed = 0;
  for (const review of await overdueReviews(at)) {
    try {
      await claimReviewClose(db(), review.id, null);
      await applyReview(review.id, review.created_by);
      closed += 1;
    } catch (error) {
      if (!(error instanceof Conflict)) onError(review.id, error);
    }
  }
  return closed;
}

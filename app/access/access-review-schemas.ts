import { z } from "zod";
import type { AccessReviewStatus, ReviewDecision } from "../../db/schema";
import { blankToUndefined, plainText } from "./access-request-schemas";

// Access reviews (docs/http-contract.md, "Access reviews"): what opens one, and a decision on an item.

const REVIEW_DECISIONS = ["keep", "revoke"] as const;
/** A review due further out than this is a standing list, not a review. */
export const MAX_REVIEW_DAYS = 366;

const dueAt = z
  .string()
  .datetime({ offset: true })
  .refine((v) => Date.parse(v) > Date.now(), "access.review.duePast")
  .refine((v) => Date.parse(v) <= Date.now() + MAX_REVIEW_DAYS * 86_400_000, "access.review.dueFar");

const fields = {
  name: plainText(1, 120),
  role: z.string().min(1).max(100).optional(),
  team: z.string().uuid().optional(),
  dueAt,
  onOverdue: z.enum(REVIEW_DECISIONS),
};

const inReach = (v: { role?: string | undefined; team?: string | undefined }) => Boolean(v.role || v.team);
const reachIssue = { message: "access.review.scopeNeeded", path: ["role"] };

export const accessReviewInput = z.object(fields).strict().refine(inReach, reachIssue);

export const reviewDecisionInput = z.object({ decision: z.enum(REVIEW_DECISIONS) }).strict();

/** The page's forms, as a form sends them: the due date is a day, due at its end (UTC). */
export const reviewForm = z
  .object({
    ...fields,
    role: z.preprocess(blankToUndefined, fields.role),
    team: z.preprocess(blankToUndefined, fields.team),
    dueAt: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "validation.invalid")
      .transform((day) => `${day}T23:59:59.999Z`)
      .pipe(dueAt),
  })
  .refine(inReach, reachIssue);
export const decideForm = z.object({
  review: z.string().uuid(),
  decision: z.enum(REVIEW_DECISIONS),
  items: z.preprocess(
    (v) => (Array.isArray(v) ? v : v === undefined ? [] : [v]),
    z.array(z.string().uuid()).min(1, "access.review.noneChosen").max(1000),
  ),
});
export const closeForm = z.object({ review: z.string().uuid() });

type Ref = { id: string; name: string };

export type ReviewItemView = {
  id: string;
  user: { id: string; name: string; email: string };
  role: { name: string; label: string };
  team: Ref | null;
  grantedBy: Ref | null;
  grantedAt: string | null;
  expiresAt: string | null;
  /** The latest use of any of the role's permissions by this person; null: never seen. */
  lastUsedAt: string | null;
  decision: ReviewDecision | null;
  decidedBy: Ref | null;
  decidedAt: string | null;
  /** What closing did: revoked, kept, gone (the grant had already ended) or refused. */
  outcome: string | null;
  /** Whether the reader may decide it now (not their own grant, and they hold the role there). */
  mayDecide: boolean;
};

export type ReviewSummary = {
  id: string;
  name: string;
  role: { name: string; label: string } | null;
  team: Ref | null;
  dueAt: string;
  onOverdue: ReviewDecision;
  status: AccessReviewStatus;
  createdBy: Ref | null;
  createdAt: string;
  closedAt: string | null;
  evidenceSha256: string | null;
  taskId: string | null;
  counts: { items: number; keep: number; revoke: number; undecided: number };
};

export type ReviewView = ReviewSummary & { items: ReviewItemView[] };

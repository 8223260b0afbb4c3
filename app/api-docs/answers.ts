import { z } from "zod";

// The bodies the API answers with, as zod schemas: the description shows them, and the API tests
// check the answers they receive against them (app/api-docs/check-answer.ts), so neither can
// drift from the code. Fields a client needs are named; the rest of an answer may carry more.

/** The one refusal body of every `/api/*` endpoint (docs/http-contract.md). */
export const refusalBody = z.object({
  error: z
    .string()
    .meta({ description: "A stable code: unauthorized, forbidden, not_found, invalid_request, …" }),
  message: z.string().optional(),
  field: z.string().optional().meta({ description: "The input at fault, on a 400" }),
  permission: z.string().optional().meta({ description: "The permission missing, on a 403" }),
});

const isoTime = z.string().meta({ format: "date-time" });

export const taskView = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(["pending", "processing", "completed", "failed"]),
  payload: z.unknown(),
  result: z.unknown(),
  createdAt: isoTime,
  updatedAt: isoTime,
  completedAt: isoTime.nullable(),
});

export const taskAccepted = z.object({ taskId: z.string() });

export const taskList = z.object({ tasks: z.array(taskView), nextCursor: z.string().nullable() }).loose();

const teamRef = z.object({ id: z.string(), name: z.string() }).nullable();

export const grantView = z.object({
  id: z.string(),
  role: z.object({ id: z.string(), name: z.string(), label: z.string() }),
  team: teamRef,
  expiresAt: isoTime.nullable(),
  grantedBy: z.unknown(),
  grantedAt: isoTime.nullable(),
});

export const accessRequestView = z.object({
  id: z.string(),
  status: z.enum(["pending", "approved", "denied", "expired"]),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  role: z.object({ name: z.string(), label: z.string() }),
  team: z.object({ id: z.string(), name: z.string() }).nullable(),
  hours: z.number().int(),
  reason: z.string(),
  createdAt: isoTime,
  expiresAt: isoTime.meta({ description: "A pending request ends unanswered then (72 h)" }),
  decidedBy: z.object({ id: z.string(), name: z.string() }).nullable(),
  decidedAt: isoTime.nullable(),
  comment: z.string().nullable(),
  grantId: z.string().nullable(),
  mayDecide: z.boolean(),
});

const ref = z.object({ id: z.string(), name: z.string() });

const reviewSummaryFields = {
  id: z.string(),
  name: z.string(),
  role: z.object({ name: z.string(), label: z.string() }).nullable(),
  team: ref.nullable(),
  dueAt: isoTime,
  onOverdue: z.enum(["keep", "revoke"]),
  status: z.enum(["open", "closing", "closed"]),
  createdBy: ref.nullable(),
  createdAt: isoTime,
  closedAt: isoTime.nullable(),
  evidenceSha256: z
    .string()
    .nullable()
    .meta({ description: "The evidence CSV's SHA-256, also in the audit chain" }),
  taskId: z.string().nullable(),
  counts: z.object({
    items: z.number().int(),
    keep: z.number().int(),
    revoke: z.number().int(),
    undecided: z.number().int(),
  }),
};

export const reviewItemView = z.object({
  id: z.string(),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  role: z.object({ name: z.string(), label: z.string() }),
  team: ref.nullable(),
  grantedBy: ref.nullable(),
  grantedAt: isoTime.nullable(),
  expiresAt: isoTime.nullable(),
  lastUsedAt: isoTime.nullable().meta({ description: "The latest use of any of the role's permissions" }),
  decision: z.enum(["keep", "revoke"]).nullable(),
  decidedBy: ref.nullable(),
  decidedAt: isoTime.nullable(),
  outcome: z.enum(["revoked", "kept", "gone", "refused"]).nullable(),
  mayDecide: z.boolean(),
});

export const reviewSummary = z.object(reviewSummaryFields);
export const reviewView = z.object({ ...reviewSummaryFields, items: z.array(reviewItemView) });

export const roleView = z.object({
  name: z.string(),
  label: z.string(),
  description: z.string(),
  permissions: z.array(z.string()),
  superAdmin: z.boolean(),
  requestable: z.boolean(),
  maxRequestHours: z.number().nullable(),
  allowedNetworks: z.array(z.string()),
  sessionIdleMinutes: z.number().nullable(),
  sessionMaxHours: z.number().nullable(),
});

const shift = z.object({
  user: z.object({ id: z.string(), name: z.string() }),
  permission: z.string(),
  team: teamRef,
});

export const explanation = z
  .object({
    allowed: z.boolean(),
    permission: z.string(),
    superAdmin: z.boolean(),
    grants: z.array(
      z.object({ role: z.unknown(), team: z.unknown(), expiresAt: isoTime.nullable() }).loose(),
    ),
    blockers: z.array(z.string()),
  })
  .loose();

export const whoAnswer = z
  .object({
    users: z.array(z.object({ id: z.string(), name: z.string(), email: z.string() }).loose()),
    total: z.number(),
  })
  .loose();

export const impact = z
  .object({ gains: z.array(shift), losses: z.array(shift), gainsTotal: z.number(), lossesTotal: z.number() })
  .loose();

export const webhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
  })
  .loose();

export const ok = z.object({ ok: z.literal(true) }).loose();
/** An answer whose fields are the page's own business (search, notifications, saved views). */
export const anyObject = z.object({}).loose();

/** One session as GET /api/sessions lists it. */
export const sessionView = z.object({
  id: z.string(),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  ip: z.string().nullable(),
  device: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
});

/** One email template as GET /api/email-templates lists it: the words in effect, defaults where not customised. */
export const emailTemplateView = z.object({
  type: z.string(),
  language: z.string(),
  subject: z.string(),
  heading: z.string(),
  message: z.string(),
  button: z.string(),
  footer: z.string(),
  customized: z.boolean(),
  updatedAt: isoTime.nullable(),
});

/** A template rendered as its mail would be. */
export const emailPreview = z.object({ subject: z.string(), html: z.string(), text: z.string() });

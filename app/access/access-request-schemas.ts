import { z } from "zod";
import type { AccessRequestStatus } from "../../db/schema";
import { HIDDEN_IN_TEXT } from "../http/hidden-characters";
import { MAX_REQUEST_HOURS } from "./role-schemas";

// Access requests (docs/http-contract.md, "Access requests"): what a person sends to ask for a
// role for a while, and what a decider sends back.

/** Text a person types for others to read: trimmed, no hidden characters. */
export const plainText = (min: number, max = 500) =>
  z
    .string()
    .trim()
    .min(min)
    .max(max)
    // Line breaks are fine in a reason; other hidden characters are not.
    .refine((v) => !HIDDEN_IN_TEXT.test(v), "validation.plainText");
const text = (min: number) => plainText(min);

export const accessRequestInput = z
  .object({
    role: z.string().min(1).max(100),
    team: z.string().uuid().optional(),
    hours: z.number().int().min(1).max(MAX_REQUEST_HOURS),
    reason: text(1),
  })
  .strict();

export const approveInput = z.object({ comment: text(0).optional() }).strict();
export const denyInput = z.object({ comment: text(1) }).strict();

const ACCESS_REQUEST_STATUSES = ["pending", "approved", "denied", "expired"] as const;
export const accessRequestListQuery = z.object({ status: z.enum(ACCESS_REQUEST_STATUSES).optional() });

export type AccessRequestView = {
  id: string;
  status: AccessRequestStatus;
  user: { id: string; name: string; email: string };
  role: { name: string; label: string };
  team: { id: string; name: string } | null;
  hours: number;
  reason: string;
  createdAt: string;
  /** A pending request ends unanswered then. */
  expiresAt: string;
  decidedBy: { id: string; name: string } | null;
  decidedAt: string | null;
  comment: string | null;
  grantId: string | null;
  /** Whether the reader may approve or deny it now. */
  mayDecide: boolean;
};

export const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

/** The page's forms: the same fields as the API, as a form sends them. */
export const requestForm = z.object({
  role: z.string().min(1).max(100),
  team: z.preprocess(blankToUndefined, z.string().uuid().optional()),
  hours: z.coerce.number().int().min(1).max(MAX_REQUEST_HOURS),
  reason: text(1),
});
export const approveForm = z.object({
  request: z.string().uuid(),
  comment: z.preprocess(blankToUndefined, text(1).optional()),
});
export const denyForm = z.object({ request: z.string().uuid(), comment: text(1) });

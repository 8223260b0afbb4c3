import { z } from "zod";
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from "./event-types";

// Settings → Webhooks' forms, shared by the browser (conform) and the server. The address rules
// that need the server (https, a public address) are the domain's (endpoints.server.ts).

export const webhookCreateSchema = z.object({
  url: z
    .string({ message: "webhooks.enterUrl" })
    .trim()
    .url("webhooks.enterUrl")
    .max(2_000, "validation.maxLength"),
  description: z
    .string()
    .trim()
    .max(200, "validation.maxLength")
    .optional()
    .transform((v) => v ?? ""),
  events: z
    .array(z.enum([ALL_EVENTS, ...WEBHOOK_EVENT_TYPES]), { message: "webhooks.atLeastOneEvent" })
    .min(1, "webhooks.atLeastOneEvent"),
  enabled: z
    .boolean()
    .optional()
    .transform((v) => v ?? false),
});

export const webhookEndpointSchema = z.object({ endpoint: z.string().min(1).max(100) });
export const webhookToggleSchema = webhookEndpointSchema.extend({ enabled: z.enum(["0", "1"]) });
export const webhookRetrySchema = z.object({ message: z.string().min(1).max(100) });
/** "Replay since": the last few hours, the usual length of an outage; a week at most. */
export const REPLAY_HOURS = [1, 6, 24, 72, 168] as const;
export const webhookReplaySchema = webhookEndpointSchema.extend({
  hours: z.coerce.number().int().min(1).max(168),
});

import { z } from "zod";

/** `POST /api/notifications` (a form): mark one read, or all. */
export const notificationsBody = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("read"), id: z.string().uuid() }),
  z.object({ intent: z.literal("read-all") }),
]);

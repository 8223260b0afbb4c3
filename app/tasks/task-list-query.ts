import { z } from "zod";

/** `GET /api/tasks?limit=&cursor=`: a page of one's tasks, newest first. */
export const taskListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(100).refine(isCursor).optional(),
});

const CURSOR =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** On PostgreSQL text that is no time compared with a timestamptz column is a 500, so it is refused first. */
function isCursor(cursor: string): boolean {
  const time = CURSOR.exec(cursor)?.[1];
  return time !== undefined && !Number.isNaN(Date.parse(time)) && new Date(time).toISOString() === time;
}

import { requireUser } from "../auth/guard.server";
import { streamOptionsFor } from "../auth/session.server";
import { lastEventIdOf, userEventStream } from "../events/stream.server";
import { clientIp } from "../http/request-info.server";
import type { Route } from "./+types/api.events";

/**
 * GET /api/events: the caller's own system events as server-sent events, with a ping every 15 s;
 * with Last-Event-ID (or `?lastEventId=`), first what the caller missed.
 */
export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  const lastEventId = lastEventIdOf(args.request);
  return userEventStream(args.request.signal, user.id, {
    ...streamOptionsFor(user, clientIp(args.context)),
    lastEventId,
  });
}

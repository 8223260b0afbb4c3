import { requireSomewhere } from "../auth/guard.server";
import { listSessions, sessionsQuery } from "../auth/sessions-admin.server";
import { getT } from "../i18n/i18n.server";
import { methodNotAllowed } from "../webhooks/api-answers.server";
import type { Route } from "./+types/api.sessions";

// Every active session of the people in reach (docs/http-contract.md, "Sessions"), newest use first;
// `next` is the `after` of the following page.

export async function loader(args: Route.LoaderArgs) {
  const user = await requireSomewhere(args, "user.update");
  const query = sessionsQuery.parse(Object.fromEntries(new URL(args.request.url).searchParams));
  const { sessions, next } = await listSessions(user, query, getT(args.context));
  return Response.json({
    sessions: sessions.map(({ id, user, ip, device, createdAt, lastSeenAt }) => ({
      id,
      user,
      ip,
      device,
      createdAt,
      lastSeenAt,
    })),
    next,
  });
}

export function action() {
  return methodNotAllowed("GET");
}

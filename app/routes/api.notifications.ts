import { requireUser } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { markAllRead, markRead, recentNotifications, unreadCount } from "../notifications/inbox.server";
import { notificationsBody as bodySchema } from "../notifications/inbox-request";
import type { Route } from "./+types/api.notifications";

export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  const [items, unread] = await Promise.all([recentNotifications(user.id), unreadCount(user.id)]);
  return Response.json({ notifications: items, unread });
}

export async function action(args: Route.ActionArgs) {
  const user = await requireUser(args);
  const parsed = bodySchema.safeParse(
    Object.fromEntries(await args.request.formData().catch(() => new FormData())),
  );
  if (!parsed.success) return apiError(400, "invalid_request");
  if (parsed.data.intent === "read") {
    // Keyed by the session's user id, so nobody marks another person's notification.
    if (!(await markRead(user.id, parsed.data.id))) return apiError(404, "not_found");
  } else {
    await markAllRead(user.id);
  }
  return Response.json({ ok: true, unread: await unreadCount(user.id) });
}

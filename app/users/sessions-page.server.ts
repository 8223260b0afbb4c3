import { z } from "zod";
import { type ActionArgs, handleIntents } from "../auth/intents.server";
import type { SessionUser } from "../auth/session.server";
import {
  endEveryoneElse,
  endSessionsByHandle,
  listSessions,
  sessionsQuery,
} from "../auth/sessions-admin.server";
import { redirectWithToast } from "../http/form.server";
import { getT } from "../i18n/i18n.server";

// /dashboard/sessions: every active session of the people in reach, filtered; end one, the ticked
// ones, or (a super admin, in an incident) everyone's but one's own.

export async function sessionsPageData(user: SessionUser, url: URL, t: Parameters<typeof listSessions>[2]) {
  const query = sessionsQuery.parse(Object.fromEntries(url.searchParams));
  const { sessions, next } = await listSessions(user, query, t);
  return {
    sessions,
    next,
    filters: { q: query.q ?? "", ip: query.ip ?? "", idle: query.idle ? String(query.idle) : "" },
    isSuperAdmin: user.isSuperAdmin,
  };
}

const handles = z.object({ sessions: z.array(z.string().max(32)).min(1, "sessions.noneChosen").max(200) });
const one = z.object({ session: z.string().max(32) });

export const runSessionsIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  const back = (message: string) => {
    const url = new URL(args.request.url);
    return redirectWithToast(`/dashboard/sessions${url.search}`, { kind: "success", message });
  };
  return handleIntents(
    args,
    {
      end: {
        schema: one,
        run: async ({ actor, input }) => {
          const n = await endSessionsByHandle(actor, [input.session], args);
          return back(t("users:sessions.ended", { count: n }));
        },
      },
      "end-selected": {
        schema: handles,
        run: async ({ actor, input }) => {
          const n = await endSessionsByHandle(actor, input.sessions, args);
          return back(t("users:sessions.ended", { count: n }));
        },
      },
      "end-everyone": {
        run: async ({ actor }) => {
          const n = await endEveryoneElse(actor, args);
          return back(t("users:sessions.endedEveryone", { count: n }));
        },
      },
    },
    { permission: "user.update", somewhere: true },
  );
};

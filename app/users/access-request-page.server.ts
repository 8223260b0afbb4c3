import { data } from "react-router";
import { approveForm, denyForm, requestForm } from "../access/access-request-schemas";
import { roleGrants } from "../access/role-cache.server";
import { type ActionArgs, handleIntents } from "../auth/intents.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { getT } from "../i18n/i18n.server";
import { createAccessRequest, decideAccessRequest, listAccessRequests } from "./access-requests.server";

// /dashboard/access/requests: ask for a role, answer the requests one may decide, see one's own.

export async function accessRequestsPageData(user: SessionUser) {
  const [requests, roles, teams] = await Promise.all([
    listAccessRequests(user),
    roleGrants(),
    db()
      .selectFrom("team_member")
      .innerJoin("team", "team.id", "team_member.team_id")
      .select(["team.id", "team.name"])
      .where("team_member.user_id", "=", user.id)
      .orderBy("team.name")
      .execute(),
  ]);
  const requestable = [...roles.values()]
    .filter((r) => !r.all && r.maxRequestHours !== null)
    .map((r) => ({
      name: r.name,
      label: r.label,
      translations: r.translations,
      maxHours: r.maxRequestHours!,
    }));
  return {
    me: user.id,
    requestable,
    teams,
    requests,
  };
}

function answered(intent: string, message: string) {
  return data({ ok: true as const, intent, errors: {} as Record<string, string>, formError: null, message });
}

export const runAccessRequestIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      request: {
        schema: requestForm,
        run: async ({ actor, input }) => {
          const made = await createAccessRequest(actor, input, args);
          return answered("request", t("access:requests.sent", { role: made.role.label }));
        },
      },
      approve: {
        permission: "roles.manage",
        schema: approveForm,
        run: async ({ actor, input }) => {
          const decided = await decideAccessRequest(
            actor,
            input.request,
            { approve: true, comment: input.comment },
            args,
          );
          return answered("approve", t("access:requests.approved", { name: decided.user.name }));
        },
      },
      deny: {
        permission: "roles.manage",
        schema: denyForm,
        run: async ({ actor, input }) => {
          const decided = await decideAccessRequest(
            actor,
            input.request,
            { approve: false, comment: input.comment },
            args,
          );
          return answered("deny", t("access:requests.denied", { name: decided.user.name }));
        },
      },
    },
    { permission: "dashboard.access" },
  );
};

import { data } from "react-router";
import { networkRulePreview, setRoleNetworks } from "../access/networks.server";
import { roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import { roleNetworksSchema, roleSessionLimitsSchema } from "../access/role-schemas";
import { assertMayEditRole, mayEditRole } from "../access/rules.server";
import { setRoleSessionLimits } from "../access/session-limits.server";
import type { AuditedActor } from "../audit/actor";
import { type ActionArgs, handleIntents } from "../auth/intents.server";
import { NotFound } from "../domain-errors";
import { redirectWithToast } from "../http/form.server";
import { clientIp } from "../http/request-info.server";
import { getT } from "../i18n/i18n.server";

// /dashboard/access/roles/:name/policy: where a role may be used from (who a rule would have refused
// in the last 30 days, then the rule saved) and how long its holders' sessions may last.

export async function networkRulePageData(actor: AuditedActor, name: string, context: ActionArgs["context"]) {
  const role = [...(await roleGrants()).values()].find((r) => r.name === name);
  if (!role) throw new NotFound("access.roleGone");
  const editable = mayEditRole(actor, role);
  return {
    role: {
      id: role.id,
      name: role.name,
      label: role.label,
      translations: role.translations,
      all: role.all,
      allowedNetworks: role.allowedNetworks,
      sessionIdleMinutes: role.sessionIdleMinutes,
      sessionMaxHours: role.sessionMaxHours,
    },
    editable,
    /** Where the viewer is, as the rule would see them. */
    ip: clientIp(context),
  };
}

export const runNetworkRuleIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      preview: {
        schema: roleNetworksSchema,
        run: async ({ actor, input }) => {
          const role = (await roleGrants()).get(input.roleId);
          if (!role) throw new NotFound("access.roleGone");
          assertMayEditRole(actor, role);
          return data({
            ok: true as const,
            intent: "preview" as const,
            networks: input.networks,
            preview: await networkRulePreview(role.id, input.networks),
          });
        },
      },
      save: {
        schema: roleNetworksSchema,
        run: async ({ actor, input }) => {
          const role = await setRoleNetworks(actor, input, args);
          const label = roleLabel(t, role);
          return redirectWithToast(`/dashboard/access/roles/${encodeURIComponent(role.name)}/policy`, {
            kind: "success",
            message: input.networks.length
              ? t("access:networks.saved", { role: label, count: input.networks.length })
              : t("access:networks.cleared", { role: label }),
          });
        },
      },
      sessions: {
        schema: roleSessionLimitsSchema,
        run: async ({ actor, input }) => {
          const role = await setRoleSessionLimits(actor, input, args);
          return redirectWithToast(`/dashboard/access/roles/${encodeURIComponent(role.name)}/policy`, {
            kind: "success",
            message: t("access:policy.sessionsSaved", { role: roleLabel(t, role) }),
          });
        },
      },
    },
    { permission: "roles.manage" },
  );
};

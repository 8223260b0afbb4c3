import { requireSuperAdmin } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import {
  createProvider,
  deleteProvider,
  listProviders,
  rolesForNewAccounts,
  updateProvider,
} from "../../auth/sso-providers.server";
import { createProviderSchema, deleteProviderSchema, updateProviderSchema } from "../../auth/sso-schema";
import { pageTitle } from "../../components/page-title";
import { baseUrl } from "../../env.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { done } from "../../settings/answers.server";
import { SettingsSubpage } from "../dashboard.settings/settings-subpage";
import type { Route } from "./+types/route";
import { SsoSection } from "./sso-section";

// Single sign-on providers: super admins only (docs/decisions/020-oidc-single-sign-on.md).

export async function loader(args: Route.LoaderArgs) {
  const user = await requireSuperAdmin(args);
  const [providers, roles] = await Promise.all([listProviders(user), rolesForNewAccounts()]);
  return { providers, roles, callbackBase: baseUrl() };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  await requireSuperAdmin(args);
  const t = getT(args.context);
  return handleIntents(args, {
    "create-provider": {
      schema: createProviderSchema,
      run: async ({ actor, input }) => {
        await createProvider(actor, input, args);
        return done("create-provider", t("settings:sso.added", { name: input.name }));
      },
    },
    "update-provider": {
      schema: updateProviderSchema,
      run: async ({ actor, input }) => {
        await updateProvider(actor, input, args);
        return done("update-provider", t("settings:sso.saved", { name: input.name }));
      },
    },
    "delete-provider": {
      schema: deleteProviderSchema,
      run: async ({ actor, input }) => {
        await deleteProvider(actor, input.id, args);
        return done("delete-provider", t("settings:sso.removed"));
      },
    },
  });
}

export default function SingleSignOnSettings({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <SettingsSubpage title={t("settings:sso.title")}>
      <SsoSection {...loaderData} />
    </SettingsSubpage>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "sso");

import type { TFunction } from "i18next";
import { data } from "react-router";
import { roleGrants } from "../access/role-cache.server";
import { assertReauthenticated, reauthMethods } from "../auth/account.server";
import { refuseWhileImpersonating } from "../auth/guard.server";
import type { ActionArgs, IntentHandler } from "../auth/intents.server";
import type { SessionUser } from "../auth/session.server";
import {
  confirmTwoFactor,
  disableTwoFactor,
  regenerateRecoveryCodes,
  requiredRoleIds,
  setRequiredRoles,
  startTwoFactor,
  twoFactorView,
} from "../auth/two-factor.server";
import { twoFactorCodeSchema, twoFactorReauthSchema, twoFactorRolesSchema } from "../auth/two-factor-schemas";

// Settings' two-factor section: its data and its intents (registered in account-settings.server.ts; the roles policy in workspace-settings.server.ts).

/** The person's own two-factor card (Security); the roles policy is System's (`twoFactorPolicy`). */
export async function twoFactorSettingsData(user: SessionUser) {
  const [view, reauth] = await Promise.all([twoFactorView(user), reauthMethods(user.id)]);
  // How the forms re-authenticate: password, code, or (neither) a recent sign-in.
  return { view, due: user.twoFactorEnrolmentDue ?? false, policy: null, reauth };
}

/** Which roles must use two-factor: a super admin's policy, read for super admins only. */
export function twoFactorPolicy(user: SessionUser) {
  return user.isSuperAdmin ? rolePolicy() : null;
}

async function rolePolicy() {
  const [grants, required] = await Promise.all([roleGrants(), requiredRoleIds()]);
  return {
    roles: [...grants.values()].map((r) => ({
      id: r.id,
      name: r.name,
      label: r.label,
      translations: r.translations,
    })),
    required,
  };
}

const reauthProof = (input: { currentPassword?: string; reauthCode?: string }) => ({
  password: input.currentPassword,
  code: input.reauthCode,
});

function answer<I extends string>(intent: I, message: string, recoveryCodes: string[] | null = null) {
  return data({
    ok: true as const,
    intent,
    errors: {} as Record<string, string>,
    formError: null,
    message,
    recoveryCodes,
  });
}

export const twoFactorIntent = {
  // Like passkeys and API tokens: re-authentication, so a stolen session cannot attach its own app.
  start: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorReauthSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args, actor);
        await assertReauthenticated(args, actor, reauthProof(input), "two-factor-start");
        await startTwoFactor(actor, {}, args);
        return answer("two-factor-start", t("settings:twoFactor.started"));
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorReauthSchema>,
  confirm: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorCodeSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args, actor);
        const codes = await confirmTwoFactor(actor, input, args);
        return answer("two-factor-confirm", t("settings:twoFactor.enabled"), codes);
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorCodeSchema>,
  disable: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorReauthSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args, actor);
        await assertReauthenticated(args, actor, reauthProof(input), "two-factor-disable");
        await disableTwoFactor(actor, {}, args);
        return answer("two-factor-disable", t("settings:twoFactor.disabled"));
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorReauthSchema>,
  recoveryCodes: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorReauthSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args, actor);
        await assertReauthenticated(args, actor, reauthProof(input), "two-factor-recovery-codes");
        const codes = await regenerateRecoveryCodes(actor, {}, args);
        return answer("two-factor-recovery-codes", t("settings:twoFactor.newCodes"), codes);
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorReauthSchema>,
  roles: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorRolesSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args, actor);
        const changed = await setRequiredRoles(actor, { roleIds: input.roles }, args);
        return answer("two-factor-roles", changed ? t("settings:saved") : t("settings:nothingToChange"));
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorRolesSchema>,
};

import type { TFunction } from "i18next";
import { data } from "react-router";
import { refuseWhileImpersonating } from "../access/guard.server";
import type { ActionArgs, IntentHandler } from "../access/intents.server";
import { roleGrants } from "../access/role-cache.server";
import { assertCurrentPassword, assertPasswordOrFreshSignIn } from "../auth/account.server";
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
import {
  twoFactorCodeSchema,
  twoFactorReauthSchema,
  twoFactorRolesSchema,
  twoFactorStartSchema,
} from "../auth/two-factor-schemas";
import { db } from "../db.server";

// Settings' two-factor section: its data and its intents (registered in settings-page.server.ts).

export async function twoFactorSettingsData(user: SessionUser) {
  const [view, policy, hasPassword] = await Promise.all([
    twoFactorView(user),
    user.isSuperAdmin ? rolePolicy() : null,
    accountHasPassword(user.id),
  ]);
  // Without a password (single sign-on), setting up asks for a recent sign-in instead.
  return { view, due: user.twoFactorEnrolmentDue ?? false, policy, hasPassword };
}

async function accountHasPassword(userId: string) {
  const row = await db()
    .selectFrom("user")
    .select("password_hash")
    .where("id", "=", userId)
    .executeTakeFirst();
  return Boolean(row?.password_hash);
}

async function rolePolicy() {
  const [grants, required] = await Promise.all([roleGrants(), requiredRoleIds()]);
  return {
    roles: [...grants.values()].map((r) => ({ id: r.id, name: r.name, label: r.label })),
    required,
  };
}

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
  // Like passkeys and API tokens: the password again, so a stolen session cannot attach its own app.
  start: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorStartSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args.request, actor);
        await assertPasswordOrFreshSignIn(args, actor, input.currentPassword, "two-factor-start");
        await startTwoFactor(actor, {}, args);
        return answer("two-factor-start", t("settings:twoFactor.started"));
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorStartSchema>,
  confirm: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorCodeSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args.request, actor);
        const codes = await confirmTwoFactor(actor, input, args);
        return answer("two-factor-confirm", t("settings:twoFactor.enabled"), codes);
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorCodeSchema>,
  disable: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorReauthSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args.request, actor);
        await assertCurrentPassword(args, actor, input.currentPassword, "two-factor-disable");
        await disableTwoFactor(actor, {}, args);
        return answer("two-factor-disable", t("settings:twoFactor.disabled"));
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorReauthSchema>,
  recoveryCodes: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorReauthSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args.request, actor);
        await assertCurrentPassword(args, actor, input.currentPassword, "two-factor-recovery-codes");
        const codes = await regenerateRecoveryCodes(actor, {}, args);
        return answer("two-factor-recovery-codes", t("settings:twoFactor.newCodes"), codes);
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorReauthSchema>,
  roles: (args: ActionArgs, t: TFunction) =>
    ({
      schema: twoFactorRolesSchema,
      run: async ({ actor, input }) => {
        refuseWhileImpersonating(args.request, actor);
        const changed = await setRequiredRoles(actor, { roleIds: input.roles }, args);
        return answer("two-factor-roles", changed ? t("settings:saved") : t("settings:nothingToChange"));
      },
    }) satisfies IntentHandler<ActionArgs, typeof twoFactorRolesSchema>,
};

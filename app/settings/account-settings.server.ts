import type { TFunction } from "i18next";
import { roleGrants } from "../access/role-cache.server";
import {
  assertReauthenticated,
  changePassword,
  listMySessions,
  reauthMethods,
  requestEmailChange,
  revokeMySessions,
  updateLanguage,
  updateProfile,
} from "../auth/account.server";
import {
  changeEmailSchema,
  changePasswordSchema,
  languageSchema,
  profileSchema,
} from "../auth/account-schemas";
import { createApiTokenSchema, revokeApiTokenSchema } from "../auth/api-token-schemas";
import {
  createApiToken,
  grantablePermissions,
  listApiTokens,
  revokeOwnApiToken,
} from "../auth/api-tokens.server";
import { afterPasswordChange, refuseWhileImpersonating } from "../auth/guard.server";
import { type ActionArgs, handleIntents } from "../auth/intents.server";
import {
  addPasskeySchema,
  passkeyOptionsSchema,
  removePasskeySchema,
  renamePasskeySchema,
} from "../auth/passkey-schemas";
import {
  addPasskey,
  listPasskeys,
  passkeyRegistrationOptions,
  removePasskey,
  renamePasskey,
} from "../auth/passkeys.server";
import type { SessionUser } from "../auth/session.server";
import {
  forgetDevice,
  listKnownDevices,
  setSignInAlerts,
  signInAlertsOf,
} from "../auth/sign-in-alerts.server";
import { db } from "../db.server";
import { redirectWithToast } from "../http/form.server";
import { getT, i18nFor, resolveLanguage } from "../i18n/i18n.server";
import { say } from "../i18n/message";
import { supportedLanguages } from "../i18n/resources.server";
import { done } from "./answers.server";
import { describeSessions } from "./session-view";
import { forgetDeviceSchema, revokeSessionSchema, signInAlertsSchema } from "./settings-form";
import { twoFactorIntent, twoFactorSettingsData } from "./two-factor-settings.server";

export async function profileData(user: SessionUser) {
  return {
    profile: { name: user.name, email: user.email, locale: user.locale ?? null },
    languages: supportedLanguages(),
    access: await ownAccess(user),
  };
}

/** The roles a person holds, with where and until when: what the ending notice links to. */
async function ownAccess(user: SessionUser) {
  const teamIds = [...new Set(user.grants.flatMap((g) => (g.team ? [g.team.id] : [])))];
  const names = new Map(
    teamIds.length
      ? (await db().selectFrom("team").select(["id", "name"]).where("id", "in", teamIds).execute()).map(
          (t) => [t.id, t.name] as const,
        )
      : [],
  );
  const roles = await roleGrants();
  return user.grants.map((g) => {
    const role = roles.get(g.role.id);
    return {
      role: { name: g.role.name, label: g.role.label, translations: role?.translations ?? {} },
      team: g.team ? (names.get(g.team.id) ?? g.team.name ?? null) : null,
      expiresAt: g.expiresAt,
    };
  });
}

export async function securityData(
  user: SessionUser,
  reader: { language: string; t: TFunction },
  request: Request,
) {
  const [sessions, twoFactor, passkeys, devices, alerts] = await Promise.all([
    listMySessions(user),
    twoFactorSettingsData(user),
    listPasskeys(user.id),
    listKnownDevices(user.id, request, reader.t),
    signInAlertsOf(user.id),
  ]);
  return {
    email: user.email,
    sessions: describeSessions(sessions, Date.now(), reader),
    passkeys,
    devices: { devices, alerts },
    twoFactor,
  };
}

export async function apiTokensData(user: SessionUser) {
  const [tokens, reauth] = await Promise.all([listApiTokens(user.id), reauthMethods(user.id)]);
  return { tokens, permissions: grantablePermissions(user), reauth };
}

export const runProfileIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      profile: {
        schema: profileSchema,
        run: async ({ actor, input }) => {
          const changed = await updateProfile(actor, input, args);
          return done("profile", changed ? t("settings:profile.nameSaved") : t("settings:nothingToChange"));
        },
      },
      // A personal preference, yet changed only by the person: not while someone views as them.
      language: {
        schema: languageSchema(supportedLanguages()),
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          const changed = await updateLanguage(actor, { locale: input.locale }, args);
          // Said in the language the page is about to switch to.
          const next = i18nFor(await resolveLanguage(args.request, input.locale)).t;
          return done(
            "language",
            changed ? next("settings:profile.language.saved") : next("settings:nothingToChange"),
          );
        },
      },
      email: {
        schema: changeEmailSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await requestEmailChange(actor, input, args);
          return done("email", t("settings:profile.emailSent", { email: input.email }));
        },
      },
    },
    { permission: "dashboard.access" },
  );
};

export const runSecurityIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      password: {
        schema: changePasswordSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          const { warn } = await changePassword(actor, input, args);
          const said = warn
            ? `${t("settings:password.changed")} ${say(t, "auth.passwordBreachedWarning")}`
            : t("settings:password.changed");
          // A change the gate demanded ends where the person was headed, not on Settings.
          if (actor.mustChangePassword)
            await redirectWithToast(afterPasswordChange(input.redirectTo), {
              kind: warn ? "info" : "success",
              message: said,
            });
          return done("password", said);
        },
      },
      "revoke-session": {
        schema: revokeSessionSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          const count = await revokeMySessions(actor, { handle: input.session }, args);
          return done(
            "revoke-session",
            count ? t("settings:sessions.revoked") : t("settings:sessions.alreadyEnded"),
          );
        },
      },
      "forget-device": {
        schema: forgetDeviceSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await forgetDevice(actor, input.device, args);
          return done("forget-device", t("settings:devices.forgotten"));
        },
      },
      "sign-in-alerts": {
        schema: signInAlertsSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await setSignInAlerts(actor, input.on === "1", args);
          return done(
            "sign-in-alerts",
            input.on === "1" ? t("settings:devices.alertsSavedOn") : t("settings:devices.alertsSavedOff"),
          );
        },
      },
      "revoke-others": {
        run: async ({ actor }) => {
          refuseWhileImpersonating(args, actor);
          const count = await revokeMySessions(actor, "others", args);
          return done("revoke-others", t("settings:sessions.othersRevoked", { count }));
        },
      },
      "two-factor-start": twoFactorIntent.start(args, t),
      "two-factor-confirm": twoFactorIntent.confirm(args, t),
      "two-factor-disable": twoFactorIntent.disable(args, t),
      "two-factor-recovery-codes": twoFactorIntent.recoveryCodes(args, t),
      // A passkey is two factors: its challenge is issued only after re-authentication, bound to the account.
      "passkey-options": {
        schema: passkeyOptionsSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await assertReauthenticated(
            args,
            actor,
            { password: input.currentPassword, code: input.reauthCode },
            "passkey-add",
          );
          const options = await passkeyRegistrationOptions(actor);
          return done("passkey-options", "", { options });
        },
      },
      "passkey-add": {
        schema: addPasskeySchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await addPasskey(actor, input, args);
          return done("passkey-add", t("settings:passkeys.added", { name: input.name }));
        },
      },
      "passkey-rename": {
        schema: renamePasskeySchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await renamePasskey(actor, input, args);
          return done("passkey-rename", t("settings:passkeys.renamed", { name: input.name }));
        },
      },
      "passkey-remove": {
        schema: removePasskeySchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await removePasskey(actor, input, args);
          return done("passkey-remove", t("settings:passkeys.removed"));
        },
      },
    },
    { permission: "dashboard.access" },
  );
};

export const runApiTokensIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      "create-api-token": {
        schema: createApiTokenSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await assertReauthenticated(
            args,
            actor,
            { password: input.currentPassword, code: input.reauthCode },
            "create-api-token",
          );
          const { secret } = await createApiToken(actor, input, args);
          return done("create-api-token", t("settings:apiTokens.created", { name: input.name }), { secret });
        },
      },
      "revoke-api-token": {
        schema: revokeApiTokenSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await revokeOwnApiToken(actor, { id: input.apiToken }, args);
          return done("revoke-api-token", t("settings:apiTokens.revoked"));
        },
      },
    },
    { permission: "dashboard.access" },
  );
};

import type { TFunction } from "i18next";
import { data } from "react-router";
import { can } from "../access/check";
import { assignableRoles } from "../access/rules.server";
import { auditIntegrity } from "../audit/integrity.server";
import {
  assertReauthenticated,
  changePassword,
  listMySessions,
  requestEmailChange,
  revokeMySessions,
  updateLanguage,
  updateProfile,
} from "../auth/account.server";
import {
  changeEmailSchema,
  changePasswordSchema,
  inviteSchema,
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
import { invitationOutcomeText } from "../auth/invitation-text";
import { inviteUser } from "../auth/invitations.server";
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
import { env } from "../env.server";
import { redirectWithToast } from "../http/form.server";
import { getT, i18nFor, resolveLanguage } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import { recentMail } from "../mail/mail-log.server";
import { configLabel } from "../system-settings/config-labels";
import { describeSystemConfig } from "../system-settings/system-config.server";
import { replaySince, sendAgain } from "../webhooks/deliveries.server";
import {
  webhookCreateSchema,
  webhookEndpointSchema,
  webhookReplaySchema,
  webhookRetrySchema,
  webhookToggleSchema,
} from "../webhooks/endpoint-form";
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  rotateSecret,
  sendTest,
  updateEndpoint,
} from "../webhooks/endpoints.server";
import { ALL_EVENTS, mayReceive, WEBHOOK_EVENT_TYPES } from "../webhooks/event-types";
import { describeSessions } from "./session-view";
import {
  forgetDeviceSchema,
  revokeSessionSchema,
  signInAlertsSchema,
  systemSettingsSchema,
} from "./settings-form";
import { twoFactorIntent, twoFactorSettingsData } from "./two-factor-settings.server";
import { applySettingsChanges } from "./update-settings.server";

// The Settings page's data and its form intents, kept out of the route module so it stays thin.

/** `reader`: the request's language and `t`, for what the server words (sessions' devices, times). */
export async function settingsPageData(
  user: SessionUser,
  reader?: { language: string; t: TFunction },
  request?: Request,
) {
  const manage = can(user, "settings.manage");
  const invite = can(user, "user.write");
  const [
    sessions,
    config,
    mailLog,
    roles,
    twoFactor,
    apiTokens,
    passkeys,
    integrity,
    endpoints,
    devices,
    alerts,
  ] = await Promise.all([
    listMySessions(user),
    manage ? describeSystemConfig(user) : null,
    manage ? recentMail(25, user) : null,
    invite ? assignableRoles(user) : null,
    twoFactorSettingsData(user),
    listApiTokens(user.id),
    listPasskeys(user.id),
    manage ? auditIntegrity() : null,
    manage ? listEndpoints() : null,
    listKnownDevices(user.id, request ?? new Request("http://localhost/"), reader?.t),
    signInAlertsOf(user.id),
  ]);
  return {
    profile: { name: user.name, email: user.email, locale: user.locale ?? null },
    // The language select offers every locale folder there is (app/locales/<language>).
    languages: supportedLanguages(),
    sessions: describeSessions(sessions, Date.now(), reader),
    passkeys,
    devices: { devices, alerts },
    system: manage
      ? {
          config: config!,
          mailLog: mailLog!,
          // The development outbox shows its links on a laptop only (app/mail/send-email.server.ts).
          outboxKeepsLinks: env().NODE_ENV !== "production",
          integrity: integrity!,
        }
      : null,
    sso: user.isSuperAdmin, // single sign-on providers: super admins only (routes/dashboard.settings.sso)
    // Provisioning directories create and disable accounts (routes/dashboard.settings.directory).
    directory: manage && invite && can(user, "user.update"),
    invite: invite
      ? {
          roles: roles!.map((r) => ({
            id: r.id,
            name: r.name,
            label: r.label,
            translations: r.translations,
          })),
        }
      : null,
    // The form offers only the events this person may have sent out (app/webhooks/event-types.ts).
    webhooks: manage
      ? {
          endpoints: endpoints!,
          events: [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES].filter((e) => mayReceive(user, e)),
        }
      : null,
    twoFactor,
    apiTokens: { tokens: apiTokens, permissions: grantablePermissions(user) },
  };
}

function done<I extends string>(intent: I, message: string) {
  return data({ ok: true as const, intent, errors: {} as Record<string, string>, formError: null, message });
}

/** The Settings form's intents; every one validates, guards and audits through the domain. */
export const runSettingsIntent = (args: ActionArgs) => {
  // Answers are shown as written: they are translated here, in the request's language.
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
      password: {
        schema: changePasswordSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          await changePassword(actor, input, args);
          // A change the gate demanded ends where the person was headed, not on Settings.
          if (actor.mustChangePassword)
            await redirectWithToast(afterPasswordChange(input.redirectTo), {
              kind: "success",
              message: t("settings:password.changed"),
            });
          return done("password", t("settings:password.changed"));
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
      // Two-factor (app/settings/two-factor-settings.server.ts); each refuses while viewing as someone.
      "two-factor-start": twoFactorIntent.start(args, t),
      "two-factor-confirm": twoFactorIntent.confirm(args, t),
      "two-factor-disable": twoFactorIntent.disable(args, t),
      "two-factor-recovery-codes": twoFactorIntent.recoveryCodes(args, t),
      "two-factor-roles": twoFactorIntent.roles(args, t),
      // Passkeys (app/auth/passkeys.server.ts): the account's own, never while viewing as someone.
      // A passkey is two factors: its challenge is issued only after re-authentication,
      // and passkey-add accepts only that challenge (bound to the account, single use).
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
          return data({ ...done("passkey-options", "").data, options });
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
          // The secret leaves the server this once; only its hash is kept.
          return data({
            ...done("create-api-token", t("settings:apiTokens.created", { name: input.name })).data,
            secret,
          });
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
      system: {
        permission: "settings.manage",
        schema: systemSettingsSchema,
        run: async ({ actor, input }) => {
          const { changed } = await applySettingsChanges(actor, input, args);
          // Staff read the settings' labels, never their keys.
          const names = changed.map((key) => configLabel(t, key));
          return done(
            "system",
            names.length
              ? t("settings:system.saved", { names: names.join(", ") })
              : t("settings:nothingToChange"),
          );
        },
      },
      // Outgoing webhooks (app/webhooks): the secret leaves the server at creation and rotation only.
      "webhook-create": {
        permission: "settings.manage",
        schema: webhookCreateSchema,
        run: async ({ actor, input }) => {
          const { secret } = await createEndpoint(actor, input, args);
          return data({
            ...done("webhook-create", t("settings:webhooks.created", { url: input.url })).data,
            secret,
          });
        },
      },
      "webhook-toggle": {
        permission: "settings.manage",
        schema: webhookToggleSchema,
        run: async ({ actor, input }) => {
          const on = input.enabled === "1";
          await updateEndpoint(actor, input.endpoint, { enabled: on }, args);
          return done("webhook-toggle", on ? t("settings:webhooks.turnedOn") : t("settings:webhooks.paused"));
        },
      },
      "webhook-rotate": {
        permission: "settings.manage",
        schema: webhookEndpointSchema,
        run: async ({ actor, input }) => {
          const { secret } = await rotateSecret(actor, input.endpoint, args);
          return data({ ...done("webhook-rotate", t("settings:webhooks.rotated")).data, secret });
        },
      },
      "webhook-test": {
        permission: "settings.manage",
        schema: webhookEndpointSchema,
        run: async ({ actor, input }) => {
          await sendTest(actor, input.endpoint, args);
          return done("webhook-test", t("settings:webhooks.testQueued"));
        },
      },
      "webhook-delete": {
        permission: "settings.manage",
        schema: webhookEndpointSchema,
        run: async ({ actor, input }) => {
          await deleteEndpoint(actor, input.endpoint, args);
          return done("webhook-delete", t("settings:webhooks.deleted"));
        },
      },
      "webhook-retry": {
        permission: "settings.manage",
        schema: webhookRetrySchema,
        run: async ({ actor, input }) => {
          await sendAgain(actor, input.message, args);
          return done("webhook-retry", t("settings:webhooks.retryQueued"));
        },
      },
      "webhook-replay": {
        permission: "settings.manage",
        schema: webhookReplaySchema,
        run: async ({ actor, input }) => {
          const since = new Date(Date.now() - input.hours * 3_600_000).toISOString();
          const count = await replaySince(actor, input.endpoint, since, args);
          return done("webhook-replay", t("settings:webhooks.replayed", { count }));
        },
      },
      invite: {
        permission: "user.write",
        schema: inviteSchema,
        run: async ({ actor, input }) => {
          const outcome = await inviteUser(actor, { email: input.email, roleIds: input.roles }, args);
          const message = invitationOutcomeText(
            t,
            outcome,
            t("settings:invite.sent", { email: input.email }),
          );
          // Not mailed: the section offers "Copy invite link" for it (the link itself is asked for apart).
          const unsent = outcome.mail.sent ? null : { id: outcome.id, email: outcome.email };
          return data({ ...done("invite", message).data, unsent });
        },
      },
    },
    { permission: "dashboard.access" },
  );
};

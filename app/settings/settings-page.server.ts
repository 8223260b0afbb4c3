import { data } from "react-router";
import { can } from "../access/check";
import { refuseWhileImpersonating } from "../access/guard.server";
import { type ActionArgs, handleIntents } from "../access/intents.server";
import { assignableRoles } from "../access/rules.server";
import {
  assertCurrentPassword,
  changePassword,
  listMySessions,
  requestEmailChange,
  revokeMySessions,
  updateProfile,
} from "../auth/account.server";
import {
  changeEmailSchema,
  changePasswordSchema,
  inviteSchema,
  profileSchema,
} from "../auth/account-schemas";
import { createApiTokenSchema, revokeApiTokenSchema } from "../auth/api-token-schemas";
import {
  createApiToken,
  grantablePermissions,
  listApiTokens,
  revokeOwnApiToken,
} from "../auth/api-tokens.server";
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
import { invalid } from "../http/form.server";
import { recentMail } from "../mail/mail-log.server";
import { SYSTEM_CONFIG } from "./config-keys";
import { describeSessions } from "./session-view";
import { parseSettingsForm, revokeSessionSchema } from "./settings-form";
import { describeSystemConfig } from "./system-config.server";
import { twoFactorIntent, twoFactorSettingsData } from "./two-factor-settings.server";
import { applySettingsChanges } from "./update-settings.server";

// The Settings page's data and its form intents, kept out of the route module so it stays thin.

export async function settingsPageData(user: SessionUser) {
  const manage = can(user, "settings.manage");
  const invite = can(user, "user.write");
  const [sessions, config, mailLog, roles, twoFactor, apiTokens, passkeys] = await Promise.all([
    listMySessions(user),
    manage ? describeSystemConfig() : null,
    manage ? recentMail(25) : null,
    invite ? assignableRoles(user) : null,
    twoFactorSettingsData(user),
    listApiTokens(user.id),
    listPasskeys(user.id),
  ]);
  return {
    profile: { name: user.name, email: user.email },
    sessions: describeSessions(sessions),
    passkeys,
    system: manage ? { config: config!, mailLog: mailLog! } : null,
    sso: user.isSuperAdmin, // single sign-on providers: super admins only (routes/dashboard.settings.sso)
    invite: invite ? { roles: roles!.map((r) => ({ id: r.id, name: r.name, label: r.label })) } : null,
    twoFactor,
    apiTokens: { tokens: apiTokens, permissions: grantablePermissions(user) },
  };
}

function done<I extends string>(intent: I, message: string) {
  return data({ ok: true as const, intent, errors: {} as Record<string, string>, formError: null, message });
}

/** The Settings form's intents; every one validates, guards and audits through the domain. */
export const runSettingsIntent = (args: ActionArgs) =>
  handleIntents(
    args,
    {
      profile: {
        schema: profileSchema,
        run: async ({ actor, input }) => {
          const changed = await updateProfile(actor, input, args);
          return done("profile", changed ? "Your name was saved." : "Nothing to change.");
        },
      },
      email: {
        schema: changeEmailSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await requestEmailChange(actor, input, args);
          return done(
            "email",
            `We sent a confirmation link to ${input.email}. Your address changes once you follow it.`,
          );
        },
      },
      password: {
        schema: changePasswordSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await changePassword(actor, input, args);
          return done("password", "Your password was changed. Your other sessions were signed out.");
        },
      },
      "revoke-session": {
        schema: revokeSessionSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          const count = await revokeMySessions(actor, { handle: input.session }, args);
          return done(
            "revoke-session",
            count ? "That session was signed out." : "That session had already ended.",
          );
        },
      },
      "revoke-others": {
        run: async ({ actor }) => {
          refuseWhileImpersonating(args.request, actor);
          const count = await revokeMySessions(actor, "others", args);
          return done(
            "revoke-others",
            count === 1 ? "1 other session was signed out." : `${count} other sessions were signed out.`,
          );
        },
      },
      // Two-factor (app/settings/two-factor-settings.server.ts); each refuses while viewing as someone.
      "two-factor-start": twoFactorIntent.start(args),
      "two-factor-confirm": twoFactorIntent.confirm(args),
      "two-factor-disable": twoFactorIntent.disable(args),
      "two-factor-recovery-codes": twoFactorIntent.recoveryCodes(args),
      "two-factor-roles": twoFactorIntent.roles(args),
      // Passkeys (app/auth/passkeys.server.ts): the account's own, never while viewing as someone.
      // A passkey is two factors: its challenge is issued only after the password is entered again,
      // and passkey-add accepts only that challenge (bound to the account, single use).
      "passkey-options": {
        schema: passkeyOptionsSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await assertCurrentPassword(args, actor, input.currentPassword, "passkey-add");
          const options = await passkeyRegistrationOptions(actor);
          return data({ ...done("passkey-options", "").data, options });
        },
      },
      "passkey-add": {
        schema: addPasskeySchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await addPasskey(actor, input, args);
          return done("passkey-add", `Passkey “${input.name}” added. You can sign in with it now.`);
        },
      },
      "passkey-rename": {
        schema: renamePasskeySchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await renamePasskey(actor, input, args);
          return done("passkey-rename", `Passkey renamed to “${input.name}”.`);
        },
      },
      "passkey-remove": {
        schema: removePasskeySchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await removePasskey(actor, input, args);
          return done("passkey-remove", "Passkey removed.");
        },
      },
      "create-api-token": {
        schema: createApiTokenSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await assertCurrentPassword(args, actor, input.currentPassword, "create-api-token");
          const { secret } = await createApiToken(actor, input, args);
          // The secret leaves the server this once; only its hash is kept.
          return data({ ...done("create-api-token", `Token "${input.name}" created.`).data, secret });
        },
      },
      "revoke-api-token": {
        schema: revokeApiTokenSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
          await revokeOwnApiToken(actor, { id: input.apiToken }, args);
          return done("revoke-api-token", "The token was revoked.");
        },
      },
      system: {
        permission: "settings.manage",
        // The system section has its own parser (shared with the browser): blank, secret and reset rules.
        run: async ({ actor, form }) => {
          const parsed = parseSettingsForm(form);
          if (!parsed.ok) return invalid(parsed.fieldErrors as Record<string, string>, "system");
          const { changed } = await applySettingsChanges(actor, { changes: parsed.changes }, args);
          // Staff read the settings' labels, never their keys.
          const names = changed.map((key) => SYSTEM_CONFIG[key].label);
          return done("system", names.length ? `Saved: ${names.join(", ")}.` : "Nothing to change.");
        },
      },
      invite: {
        permission: "user.write",
        schema: inviteSchema,
        run: async ({ actor, input }) => {
          await inviteUser(actor, { email: input.email, roleIds: input.roles }, args);
          return done("invite", `Invitation sent to ${input.email}.`);
        },
      },
    },
    { permission: "dashboard.access" },
  );

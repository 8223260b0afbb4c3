import { data } from "react-router";
import { can } from "../access/check";
import { refuseWhileImpersonating } from "../access/guard.server";
import { type ActionArgs, handleIntents } from "../access/intents.server";
import { assignableRoles } from "../access/rules.server";
import {
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
import type { SessionUser } from "../auth/session.server";
import { invalid } from "../http/form.server";
import { recentMail } from "../mail/mail-log.server";
import { SYSTEM_CONFIG } from "./config-keys";
import { describeSessions } from "./session-view";
import { parseSettingsForm, revokeSessionSchema } from "./settings-form";
import { describeSystemConfig } from "./system-config.server";
import { applySettingsChanges } from "./update-settings.server";

// The Settings page's data and its form intents, kept out of the route module so it stays thin.

export async function settingsPageData(user: SessionUser) {
  const manage = can(user, "settings.manage");
  const invite = can(user, "user.write");
  const [sessions, config, mailLog, roles, apiTokens] = await Promise.all([
    listMySessions(user),
    manage ? describeSystemConfig() : null,
    manage ? recentMail(25) : null,
    invite ? assignableRoles(user) : null,
    listApiTokens(user.id),
  ]);
  return {
    profile: { name: user.name, email: user.email },
    sessions: describeSessions(sessions),
    system: manage ? { config: config!, mailLog: mailLog! } : null,
    invite: invite ? { roles: roles!.map((r) => ({ id: r.id, name: r.name, label: r.label })) } : null,
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
          await changePassword(actor, input, args);
          return done("password", "Your password was changed. Your other sessions were signed out.");
        },
      },
      "revoke-session": {
        schema: revokeSessionSchema,
        run: async ({ actor, input }) => {
          const count = await revokeMySessions(actor, { handle: input.session }, args);
          return done(
            "revoke-session",
            count ? "That session was signed out." : "That session had already ended.",
          );
        },
      },
      "revoke-others": {
        run: async ({ actor }) => {
          const count = await revokeMySessions(actor, "others", args);
          return done(
            "revoke-others",
            count === 1 ? "1 other session was signed out." : `${count} other sessions were signed out.`,
          );
        },
      },
      "create-api-token": {
        schema: createApiTokenSchema,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args.request, actor);
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

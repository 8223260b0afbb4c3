import { data } from "react-router";
import { can } from "../access/check";
import { requirePermission } from "../access/guard.server";
import { assignableRoles } from "../access/rules.server";
import type { AuditOrigin } from "../audit/audit.server";
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
  formValues,
  inviteSchema,
  profileSchema,
} from "../auth/account-schemas";
import { inviteUser } from "../auth/invitations.server";
import type { SessionUser } from "../auth/session.server";
import { actionError, invalid, parseWith, refused } from "../http/form.server";
import { recentMail } from "../mail/mail-log.server";
import { parseSettingsForm } from "./settings-form";
import { describeSystemConfig } from "./system-config.server";
import { applySettingsChanges } from "./update-settings.server";

// The Settings page's data and its form intents, kept out of the route module so it stays thin.

export async function settingsPageData(user: SessionUser) {
  const manage = can(user, "settings.manage");
  const invite = can(user, "user.write");
  const [sessions, config, mailLog, roles] = await Promise.all([
    listMySessions(user),
    manage ? describeSystemConfig() : null,
    manage ? recentMail(25) : null,
    invite ? assignableRoles(user) : null,
  ]);
  return {
    profile: { name: user.name, email: user.email },
    sessions,
    system: manage ? { config: config!, mailLog: mailLog! } : null,
    invite: invite ? { roles: roles!.map((r) => ({ id: r.id, name: r.name, label: r.label })) } : null,
  };
}

export const SETTINGS_INTENTS = [
  "profile",
  "email",
  "password",
  "revoke-session",
  "revoke-others",
  "system",
  "invite",
] as const;
export type SettingsIntent = (typeof SETTINGS_INTENTS)[number];

function done(intent: SettingsIntent, message: string) {
  return data({ ok: true as const, intent, errors: {} as Record<string, string>, formError: null, message });
}

type Args = AuditOrigin & { context: NonNullable<AuditOrigin["context"]> };

/** Runs one intent of the Settings form; every branch validates, guards and audits. */
export async function runSettingsIntent(args: Args, user: SessionUser, form: FormData) {
  const intent = form.get("intent");
  const values = formValues(form, ["roles"]);
  try {
    switch (intent) {
      case "profile": {
        const parsed = parseWith(profileSchema, values);
        if (!parsed.ok) return invalid(parsed.errors, intent);
        const changed = await updateProfile(args, user, parsed.value);
        return done(intent, changed ? "Your name was saved." : "Nothing to change.");
      }
      case "email": {
        const parsed = parseWith(changeEmailSchema, values);
        if (!parsed.ok) return invalid(parsed.errors, intent);
        await requestEmailChange(args, user, parsed.value);
        return done(
          intent,
          `We sent a confirmation link to ${parsed.value.email}. Your address changes once you follow it.`,
        );
      }
      case "password": {
        const parsed = parseWith(changePasswordSchema, values);
        if (!parsed.ok) return invalid(parsed.errors, intent);
        await changePassword(args, user, parsed.value);
        return done(intent, "Your password was changed. Your other sessions were signed out.");
      }
      case "revoke-session": {
        const handle = typeof values.session === "string" ? values.session : "";
        const count = await revokeMySessions(args, user, { handle });
        return done(intent, count ? "That session was signed out." : "That session had already ended.");
      }
      case "revoke-others": {
        const count = await revokeMySessions(args, user, "others");
        return done(
          intent,
          count === 1 ? "1 other session was signed out." : `${count} other sessions were signed out.`,
        );
      }
      case "system": {
        await requirePermission(args, "settings.manage");
        const parsed = parseSettingsForm(form);
        if (!parsed.ok) return invalid(parsed.fieldErrors as Record<string, string>, intent);
        const { changed } = await applySettingsChanges(args, user, parsed.changes);
        return done(intent, changed.length ? `Saved: ${changed.join(", ")}.` : "Nothing to change.");
      }
      case "invite": {
        await requirePermission(args, "user.write");
        const parsed = parseWith(inviteSchema, values);
        if (!parsed.ok) return invalid(parsed.errors, intent);
        await inviteUser(args, user, { email: parsed.value.email, roleIds: parsed.value.roles });
        return done(intent, `Invitation sent to ${parsed.value.email}.`);
      }
      default:
        return refused("Unknown action.", 400);
    }
  } catch (error) {
    return actionError(error, typeof intent === "string" ? intent : undefined);
  }
}

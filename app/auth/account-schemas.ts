import { z } from "zod";
import { emailField } from "../email-address";
import { COMMON_PASSWORDS } from "./common-passwords";

// Field rules shared by the public account forms and the personal settings, browser and server alike.

const PASSWORD_MIN = 10;

const nameField = z.string().trim().min(1, "validation.yourName").max(100, "validation.maxLength");

/**
 * The one password policy: register, reset, invitation, change, an admin's temporary password and
 * the seeded super admin all use it.
 */
export const newPasswordField = z
  .string()
  .min(PASSWORD_MIN, "validation.minLength")
  .max(1024, "validation.maxLength")
  .refine((p) => !COMMON_PASSWORDS.has(p.toLowerCase()), "auth.passwordCommon")
  .refine((p) => new Set(p).size >= 4, "auth.passwordRepetitive");

/** Sign-in: any refusal past this shape is the one "Invalid email or password." (login.server.ts). */
export const loginSchema = z.object({
  email: emailField,
  password: z.string().min(1, "auth.enterPassword").max(1024, "validation.maxLength"),
});

export const registerSchema = z.object({ name: nameField, email: emailField, password: newPasswordField });

export const emailOnlySchema = z.object({ email: emailField });

export const resetPasswordSchema = z
  .object({ token: z.string().min(1).max(200), password: newPasswordField, confirm: z.string() })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], message: "auth.passwordsDiffer" });

export const acceptInviteSchema = z
  .object({
    token: z.string().min(1).max(200),
    name: nameField,
    password: newPasswordField,
    confirm: z.string(),
  })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], message: "auth.passwordsDiffer" });

/**
 * Re-authentication's fields (assertReauthenticated, app/auth/account.server.ts): the password, or
 * a code from the authenticator (or a recovery code). Both optional here: which one an account
 * needs, if any, only the server knows (an account with neither signed in minutes ago).
 */
export const reauthFields = {
  currentPassword: z.string().max(1024).optional(),
  reauthCode: z.string().trim().max(20, "twoFactor.codeTooLong").optional(),
};

export const profileSchema = z.object({ name: nameField });

/**
 * The language setting: "" is automatic (the browser's language), else one of the languages there
 * are locale folders for. The list comes from the server (app/i18n/resources.server.ts) through the
 * page's loader, so the browser checks against the same list the action does.
 */
export const languageSchema = (languages: readonly string[]) =>
  z.object({
    locale: z
      .string()
      .optional()
      .refine((value) => !value || languages.includes(value), "auth.language")
      .transform((value) => value || null),
  });

export const changeEmailSchema = z.object({
  email: emailField,
  currentPassword: z.string().min(1, "auth.enterCurrentPassword").max(1024),
});

export const changePasswordSchema = z
  .object({
    currentPassword: z.string().min(1, "auth.enterCurrentPassword").max(1024),
    newPassword: newPasswordField,
    confirm: z.string(),
    // Where a forced change goes next (the gate's redirectTo); checked by afterPasswordChange.
    redirectTo: z.string().max(2000).optional(),
  })
  .refine((v) => v.newPassword === v.confirm, { path: ["confirm"], message: "auth.passwordsDiffer" });

/** Role ids picked in a form; the same role twice counts once (a second link would break a unique key). */
export const roleIdsField = z
  .array(z.string().uuid("validation.rolesFromList"))
  .max(20, "validation.atMostRoles")
  .transform((ids) => [...new Set(ids)]);

// An invitation names at least one role: the invitee is never left holding nothing by accident.
export const inviteSchema = z.object({
  email: emailField,
  roles: roleIdsField.refine((ids) => ids.length > 0, "validation.atLeastOneRole"),
});

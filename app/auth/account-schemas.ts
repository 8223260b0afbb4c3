import { z } from "zod";
import { emailField } from "../email-address";
import { COMMON_PASSWORDS } from "./common-passwords";

const PASSWORD_MIN = 10;

const nameField = z.string().trim().min(1, "validation.yourName").max(100, "validation.maxLength");

/** The one password policy, wherever a password is set. */
export const newPasswordField = z
  .string()
  .min(PASSWORD_MIN, "validation.minLength")
  .max(1024, "validation.maxLength")
  .refine((p) => !COMMON_PASSWORDS.has(p.toLowerCase()), "auth.passwordCommon")
  .refine((p) => new Set(p).size >= 4, "auth.passwordRepetitive");

/** Any refusal past this shape is the one "Invalid email or password." */
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

/** Both optional: which one an account needs, if any, only the server knows. */
export const reauthFields = {
  currentPassword: z.string().max(1024).optional(),
  reauthCode: z.string().trim().max(20, "twoFactor.codeTooLong").optional(),
};

export const profileSchema = z.object({ name: nameField });

/** The list comes from the server through the loader, so the browser checks the same list the action does. */
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
    // Checked by afterPasswordChange.
    redirectTo: z.string().max(2000).optional(),
  })
  .refine((v) => v.newPassword === v.confirm, { path: ["confirm"], message: "auth.passwordsDiffer" });

/** The same role twice counts once: a second link would break a unique key. */
export const roleIdsField = z
  .array(z.string().uuid("validation.rolesFromList"))
  .max(20, "validation.atMostRoles")
  .transform((ids) => [...new Set(ids)]);

// At least one role, so the invitee is never left holding nothing by accident.
export const inviteSchema = z.object({
  email: emailField,
  roles: roleIdsField.refine((ids) => ids.length > 0, "validation.atLeastOneRole"),
  /** The invitee's language (their mail, then their account); empty: the inviting admin's. */
  language: z.string().max(10).optional(),
});

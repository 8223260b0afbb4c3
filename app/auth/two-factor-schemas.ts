import { z } from "zod";
import { roleIdsField } from "./account-schemas";

// Two-factor forms, shared by the browser (conform) and the server.

/** A 6-digit code from the app, or a recovery code (xxxxx-xxxxx) at sign-in. */
export const twoFactorCodeSchema = z.object({
  code: z.string().trim().min(6, "Enter the code from your app.").max(20, "That code is too long."),
});

/** Turning two-factor off and new recovery codes ask for the password again. */
export const twoFactorReauthSchema = z.object({
  currentPassword: z.string().min(1, "Enter your current password.").max(1024),
});

/**
 * Setting up asks for the password again (a stolen session must not attach its own app and keep
 * the recovery codes). Optional in the schema only for accounts without a password (single
 * sign-on), which instead must have signed in minutes ago (app/auth/account.server.ts).
 */
export const twoFactorStartSchema = z.object({
  currentPassword: z.string().max(1024).optional(),
});

export const twoFactorRolesSchema = z.object({ roles: roleIdsField.default([]) });

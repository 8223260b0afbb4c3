import { z } from "zod";
import { reauthFields, roleIdsField } from "./account-schemas";

// Two-factor forms, shared by the browser (conform) and the server.

/** A 6-digit code from the app, or a recovery code (xxxxx-xxxxx) at sign-in. */
export const twoFactorCodeSchema = z.object({
  code: z.string().trim().min(6, "twoFactor.enterAppCode").max(20, "twoFactor.codeTooLong"),
});

/**
 * Setting up, turning off and new recovery codes re-authenticate (a stolen session must not attach
 * its own app, keep or drop the codes): the password or a code, as the account allows.
 */
export const twoFactorReauthSchema = z.object(reauthFields);

export const twoFactorRolesSchema = z.object({ roles: roleIdsField.default([]) });

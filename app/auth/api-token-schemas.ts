import { z } from "zod";
import { reauthFields } from "./account-schemas";

// The personal API token form, shared by the browser (conform) and the server.

/** How long a token may be asked to last, in days: the form's choices; a year at most. */
export const API_TOKEN_EXPIRY_CHOICES = [7, 30, 90, 180, 365] as const;
export const API_TOKEN_DEFAULT_DAYS = 90;
const API_TOKEN_MAX_DAYS = 365;

export const createApiTokenSchema = z.object({
  name: z.string().trim().min(1, "apiTokens.enterName").max(100, "validation.maxLength"),
  expiresInDays: z.coerce
    .number({ message: "apiTokens.expiry" })
    .int("apiTokens.expiry")
    .min(1, "apiTokens.expiry")
    .max(API_TOKEN_MAX_DAYS, "apiTokens.maxLifetime"),
  permissions: z
    .array(z.string().min(1).max(100))
    .min(1, "apiTokens.atLeastOnePermission")
    .max(50, "apiTokens.atMostPermissions")
    .transform((keys) => [...new Set(keys)]),
  /** Creating a token re-authenticates (a stolen session must not mint one). */
  ...reauthFields,
});

export type CreateApiTokenInput = Omit<
  z.output<typeof createApiTokenSchema>,
  "currentPassword" | "reauthCode"
>;

export const revokeApiTokenSchema = z.object({ apiToken: z.string().uuid("apiTokens.gone") });

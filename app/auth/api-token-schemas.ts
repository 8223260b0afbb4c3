import { z } from "zod";
import { reauthFields } from "./account-schemas";

// The personal API token form, shared by the browser (conform) and the server.

/** How long a token may be asked to last, in days: the form's choices; a year at most. */
export const API_TOKEN_EXPIRY_CHOICES = [7, 30, 90, 180, 365] as const;
export const API_TOKEN_DEFAULT_DAYS = 90;
const API_TOKEN_MAX_DAYS = 365;

export const createApiTokenSchema = z.object({
  name: z.string().trim().min(1, "Name the token.").max(100, "Use at most 100 characters."),
  expiresInDays: z.coerce
    .number({ message: "Choose when the token expires." })
    .int("Choose when the token expires.")
    .min(1, "Choose when the token expires.")
    .max(API_TOKEN_MAX_DAYS, "A token lasts at most a year."),
  permissions: z
    .array(z.string().min(1).max(100))
    .min(1, "Choose at least one permission.")
    .max(50, "Choose at most 50 permissions.")
    .transform((keys) => [...new Set(keys)]),
  /** Creating a token re-authenticates (a stolen session must not mint one). */
  ...reauthFields,
});

export type CreateApiTokenInput = Omit<
  z.output<typeof createApiTokenSchema>,
  "currentPassword" | "reauthCode"
>;

export const revokeApiTokenSchema = z.object({ apiToken: z.string().uuid("That token no longer exists.") });

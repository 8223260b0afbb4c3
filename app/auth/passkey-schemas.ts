import { z } from "zod";
import { reauthFields } from "./account-schemas";

// The passkey forms' fields, shared by the server (handleIntents) and the browser (conform).

export const passkeyNameField = z
  .string()
  .trim()
  .min(1, "Enter a name for the passkey.")
  .max(60, "Use at most 60 characters.");

/** A registration challenge is issued only after re-authentication (the password or a code). */
export const passkeyOptionsSchema = z.object(reauthFields);

/** The browser's answer (JSON) travels as a form field; the domain parses it. */
export const addPasskeySchema = z.object({
  name: passkeyNameField.optional().transform((n) => n ?? "Passkey"),
  response: z.string().min(2).max(16_000),
});

const passkeyId = z.string().min(1).max(100);

export const renamePasskeySchema = z.object({ id: passkeyId, name: passkeyNameField });
export const removePasskeySchema = z.object({ id: passkeyId });

export const passkeySignInSchema = z.object({
  response: z.string().min(2).max(16_000),
  redirectTo: z.string().max(2000).optional(),
});

/** A passkey as Settings lists it. */
export type PasskeyView = {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  backedUp: boolean;
};

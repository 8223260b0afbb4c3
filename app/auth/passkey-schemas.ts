import { z } from "zod";
import { reauthFields } from "./account-schemas";

// The passkey forms' fields, shared by the server (handleIntents) and the browser (conform).

export const passkeyNameField = z
  .string()
  .trim()
  .min(1, "passkeys.enterName")
  .max(60, "validation.maxLength");

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

// The browser's WebAuthn answers (@simplewebauthn/browser's JSON), read by passkeys.server.ts
// before the library checks them.

const b64url = z
  .string()
  .max(4096)
  .regex(/^[A-Za-z0-9_-]*$/, "passkeys.notBase64url");
const extensions = z.record(z.string(), z.unknown()).default({});

export const registrationResponseSchema = z.object({
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal("public-key"),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  clientExtensionResults: extensions,
  response: z.object({
    clientDataJSON: b64url.min(1),
    attestationObject: b64url.min(1),
    authenticatorData: b64url.optional(),
    publicKey: b64url.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});

export const authenticationResponseSchema = z.object({
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal("public-key"),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  clientExtensionResults: extensions,
  response: z.object({
    clientDataJSON: b64url.min(1),
    authenticatorData: b64url.min(1),
    signature: b64url.min(1),
    userHandle: b64url.optional(),
  }),
});

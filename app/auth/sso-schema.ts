import { z } from "zod";

// The single sign-on provider form, shared by the browser (conform) and the server
// (app/auth/sso-providers.server.ts). Rules: docs/decisions/020-oidc-single-sign-on.md.

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** http is allowed only for an identity provider on this machine (development and tests). */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

const issuerField = z
  .string({ error: "Enter the issuer URL." })
  .trim()
  .max(500, "Use at most 500 characters.")
  .refine((value) => URL.canParse(value), "Enter a full URL, like https://login.example.com.")
  // Zod runs every refinement, also after one failed: this one must not throw on a bad URL.
  .refine((value) => {
    const url = parseUrl(value);
    return (
      !url ||
      ((url.protocol === "https:" || isLoopbackHttp(url)) && !url.search && !url.hash && !url.username)
    );
  }, "Use an https address (http only for 127.0.0.1 or localhost), without query or credentials.")
  .transform((value) => value.replace(/\/+$/, ""));

const domainsField = z
  .string({ error: "Enter at least one email domain." })
  .transform((value) =>
    [
      ...new Set(
        value
          .split(/[\s,]+/)
          .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
          .filter(Boolean),
      ),
    ].sort(),
  )
  .refine((list) => list.length > 0, "Enter at least one email domain.")
  .refine((list) => list.length <= 50, "Use at most 50 domains.")
  .refine(
    (list) => list.every((d) => DOMAIN.test(d)),
    "Enter domains like example.com, separated by commas.",
  );

const fields = {
  name: z
    .string({ error: "Enter the name people see on the sign-in button." })
    .trim()
    .min(1)
    .max(60, "Use at most 60 characters."),
  slug: z
    .string({ error: "Enter a short identifier." })
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/, "Use lower-case letters, digits and dashes (up to 40)."),
  issuer: issuerField,
  clientId: z.string({ error: "Enter the client id." }).trim().min(1).max(500, "Use at most 500 characters."),
  domains: domainsField,
  roleId: z.string({ error: "Choose the role new accounts get." }).min(1).max(100),
  passwordAllowed: z.boolean().default(false),
};

const secret = z.string().max(2000, "Use at most 2000 characters.");

/** A new provider: the client secret is required. */
export const createProviderSchema = z.object({
  ...fields,
  clientSecret: secret.min(1, "Enter the client secret."),
});

/** A change to a provider: a blank client secret keeps the stored one (it is never shown). */
export const updateProviderSchema = z.object({
  ...fields,
  id: z.string().min(1).max(100),
  clientSecret: secret.optional(),
});

export const deleteProviderSchema = z.object({ id: z.string().min(1).max(100) });

export type CreateProviderInput = z.output<typeof createProviderSchema>;
export type UpdateProviderInput = z.output<typeof updateProviderSchema>;

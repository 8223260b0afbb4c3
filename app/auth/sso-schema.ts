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
  .string({ error: "sso.issuer" })
  .trim()
  .max(500, "validation.maxLength")
  .refine((value) => URL.canParse(value), "sso.issuerUrl")
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
  .string({ error: "sso.domainsRequired" })
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
  .refine((list) => list.length > 0, "sso.domainsRequired")
  .refine((list) => list.length <= 50, "sso.domainsMax")
  .refine((list) => list.every((d) => DOMAIN.test(d)), "sso.domainsFormat");

const fields = {
  name: z.string({ error: "sso.displayName" }).trim().min(1).max(60, "validation.maxLength"),
  slug: z
    .string({ error: "sso.slug" })
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/, "sso.slugFormat"),
  issuer: issuerField,
  clientId: z.string({ error: "sso.clientId" }).trim().min(1).max(500, "validation.maxLength"),
  domains: domainsField,
  roleId: z.string({ error: "sso.defaultRole" }).min(1).max(100),
  passwordAllowed: z.boolean().default(false),
};

const secret = z.string().max(2000, "validation.maxLength");

/** A new provider: the client secret is required. */
export const createProviderSchema = z.object({
  ...fields,
  clientSecret: secret.min(1, "sso.clientSecret"),
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

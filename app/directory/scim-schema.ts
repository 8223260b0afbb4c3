import { z } from "zod";

// The SCIM 2.0 messages this server reads (RFC 7643, RFC 7644): only the attributes it keeps;
// anything else a directory sends is ignored, as the RFC allows for attributes a server lacks.

export const SCIM = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  enterprise: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  list: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  errorMessage: "urn:ietf:params:scim:api:messages:2.0:Error",
  patch: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  config: "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig",
  resourceType: "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
  schema: "urn:ietf:params:scim:schemas:core:2.0:Schema",
} as const;

/** Microsoft Entra ID has sent booleans as the strings "True" and "False". */
const scimBoolean = z.union([
  z.boolean(),
  z
    .string()
    .regex(/^(true|false)$/i)
    .transform((v) => v.toLowerCase() === "true"),
]);

const text = (max: number) => z.string().trim().max(max);

export const scimUserInput = z.object({
  userName: text(254).min(1),
  externalId: text(255).nullish(),
  displayName: text(120).nullish(),
  name: z
    .object({
      formatted: text(120).nullish(),
      givenName: text(120).nullish(),
      familyName: text(120).nullish(),
    })
    .nullish(),
  emails: z
    .array(z.object({ value: text(254), primary: scimBoolean.nullish(), type: z.string().max(40).nullish() }))
    .max(20)
    .nullish(),
  active: scimBoolean.nullish(),
  [SCIM.enterprise]: z.object({ department: text(120).nullish() }).nullish(),
});
export type ScimUserInput = z.infer<typeof scimUserInput>;

export const scimGroupInput = z.object({
  displayName: text(120).min(1),
  externalId: text(255).nullish(),
  members: z
    .array(z.object({ value: z.string().max(64) }))
    .max(50_000)
    .nullish(),
});
export type ScimGroupInput = z.infer<typeof scimGroupInput>;

export const scimPatchInput = z.object({
  // Said in SCIM's English detail (scim-http.server.ts), not a person's language: no message keys here.
  schemas: z.array(z.string()).refine((s) => s.includes(SCIM.patch)),
  Operations: z
    .array(
      z.object({
        op: z.string().regex(/^(add|remove|replace)$/i),
        path: z.string().max(500).optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(1000),
});
export type ScimPatchInput = z.infer<typeof scimPatchInput>;

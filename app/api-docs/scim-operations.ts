import { z } from "zod";
import { SCIM, scimGroupInput, scimPatchInput, scimUserInput } from "../directory/scim-schema";
import type { Operation } from "./operation";

// The SCIM 2.0 service (RFC 7644) as the description shows it: the resources in the shapes
// app/directory answers with, and every refusal in RFC 7644 §3.12's error shape.

const isoTime = z.string().meta({ format: "date-time" });

const scimError = z.object({
  schemas: z.tuple([z.literal(SCIM.errorMessage)]),
  status: z.string().regex(/^[1-5]\d\d$/),
  detail: z.string().optional(),
  scimType: z
    .enum([
      "invalidFilter",
      "tooMany",
      "uniqueness",
      "mutability",
      "invalidSyntax",
      "invalidPath",
      "noTarget",
      "invalidValue",
      "invalidVers",
    ])
    .optional(),
});

const meta = (resourceType: string) =>
  z.object({
    resourceType: z.literal(resourceType),
    created: isoTime,
    lastModified: isoTime,
    location: z.string(),
    version: z.string().meta({ description: "Also the ETag header; If-Match takes it" }),
  });

// Each also carries `$ref`, its address: not named here, as a property called "$ref" reads as a
// JSON reference to OpenAPI tools.
const reference = z
  .object({ value: z.string(), display: z.string() })
  .loose()
  .meta({ description: "value: the id; $ref: the resource's address" });

const scimUser = z
  .object({
    schemas: z.array(z.string()).meta({ description: `${SCIM.user}, and the enterprise extension when set` }),
    id: z.string(),
    externalId: z.string().optional(),
    userName: z.string(),
    name: z.object({ formatted: z.string() }).loose(),
    displayName: z.string(),
    emails: z.array(z.object({ value: z.string(), type: z.string(), primary: z.boolean() })),
    active: z.boolean(),
    groups: z.array(reference),
    meta: meta("User"),
  })
  .loose();

const scimGroup = z
  .object({
    schemas: z.tuple([z.literal(SCIM.group)]),
    id: z.string(),
    displayName: z.string(),
    externalId: z.string().optional(),
    members: z.array(reference).optional().meta({ description: "Left out with excludedAttributes=members" }),
    meta: meta("Group"),
  })
  .loose();

const listOf = (resource: z.ZodType) =>
  z.object({
    schemas: z.tuple([z.literal(SCIM.list)]),
    totalResults: z.number().int().min(0),
    startIndex: z.number().int().min(1),
    itemsPerPage: z.number().int().min(0),
    Resources: z.array(resource),
  });

const described = z.object({ schemas: z.array(z.string()), id: z.string().optional() }).loose();

const listQuery = z.object({
  filter: z.string().optional().meta({ description: 'e.g. userName eq "ada@example.com"' }),
  startIndex: z.coerce.number().int().optional(),
  count: z.coerce.number().int().optional(),
});
const groupQuery = listQuery.extend({
  excludedAttributes: z.string().optional().meta({ description: "members: leave members out" }),
});

/** Any SCIM request may meet these: no valid token, a directory over its rate, a NUL in a parameter. */
const always = { 400: scimError, 401: scimError, 429: scimError };
/** A write may also meet these: a rule of the product, a name in use, a body too large. */
const writing = { ...always, 403: scimError, 409: scimError, 413: scimError };
/** A write to one resource: it may be gone, or changed since the If-Match version. */
const writingOne = { ...writing, 404: scimError, 412: scimError };

const base = { route: "routes/scim.v2.$", tag: "SCIM", auth: "scim" } as const;

function resourceOperations(
  collection: "Users" | "Groups",
  noun: string,
  resource: z.ZodType,
  input: z.ZodType,
  query: z.ZodObject,
): Operation[] {
  const one = `/scim/v2/${collection}/{id}`;
  return [
    {
      ...base,
      method: "get",
      path: `/scim/v2/${collection}`,
      summary: `SCIM: list or filter ${noun}s`,
      query,
      answers: { 200: listOf(resource), ...always },
    },
    {
      ...base,
      method: "post",
      path: `/scim/v2/${collection}`,
      summary: `SCIM: provision a ${noun}`,
      body: { schema: input },
      answers: { 201: resource, ...writing },
    },
    {
      ...base,
      method: "get",
      path: one,
      summary: `SCIM: one ${noun}`,
      answers: { 200: resource, ...always, 404: scimError },
    },
    {
      ...base,
      method: "put",
      path: one,
      summary: `SCIM: replace a ${noun}`,
      body: { schema: input },
      answers: { 200: resource, ...writingOne },
    },
    {
      ...base,
      method: "patch",
      path: one,
      summary: `SCIM: change a ${noun}`,
      body: { schema: scimPatchInput },
      answers: { 200: resource, ...writingOne },
    },
    {
      ...base,
      method: "delete",
      path: one,
      summary: `SCIM: deprovision a ${noun}`,
      answers: { 204: "none", ...always, 403: scimError, 404: scimError },
    },
  ];
}

function discovery(name: string, summary: string): Operation[] {
  return [
    {
      ...base,
      method: "get",
      path: `/scim/v2/${name}`,
      summary: `SCIM: ${summary}`,
      answers: { 200: listOf(described), ...always },
    },
    {
      ...base,
      method: "get",
      path: `/scim/v2/${name}/{id}`,
      summary: `SCIM: one of the ${summary}`,
      answers: { 200: described, ...always, 404: scimError },
    },
  ];
}

export const SCIM_OPERATIONS: Operation[] = [
  ...resourceOperations("Users", "user", scimUser, scimUserInput, listQuery),
  ...resourceOperations("Groups", "group (team)", scimGroup, scimGroupInput, groupQuery),
  {
    ...base,
    method: "get",
    path: "/scim/v2/ServiceProviderConfig",
    summary: "SCIM: what this service supports",
    answers: { 200: described, ...always },
  },
  ...discovery("Schemas", "schemas"),
  ...discovery("ResourceTypes", "resource types"),
];

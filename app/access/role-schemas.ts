import { z } from "zod";
import { networksSchema } from "../http/cidr";
import { HIDDEN_IN_LINE } from "../http/hidden-characters";
import { labelTranslationsSchema } from "./label-translations";
import { PERMISSION_KEYS } from "./permissions";

// The access page's role forms, one schema per form, read by the action and by the browser
// (through the form pipeline), so both sides check the same rules.

const ROLE_LABEL_MAX = 80;
const roleLabelSchema = z.string().trim().min(1, "validation.label").max(ROLE_LABEL_MAX);
/** The label in other languages, e.g. { de: "Prüfer" }; empty ones fall back to the label. */
const roleTranslationsSchema = labelTranslationsSchema(ROLE_LABEL_MAX);
export const ROLE_DESCRIPTION_MAX = 200;
/** Plain text on one line: it is shown inside option hints and table cells. */
const roleDescriptionText = z
  .string()
  .trim()
  .max(ROLE_DESCRIPTION_MAX)
  // None belongs in one visible line, and each can hide or reorder what a reader sees.
  .refine((v) => !HIDDEN_IN_LINE.test(v), "validation.oneLine");
const roleDescriptionSchema = roleDescriptionText.default("");

const roleNameSchema = z
  .string()
  .trim()
  .min(2, "validation.minLength")
  .max(40)
  .regex(/^[a-z][a-z0-9_]*$/, "access.roleNameFormat");

export const createRoleSchema = z.object({
  name: roleNameSchema,
  label: roleLabelSchema,
  translations: roleTranslationsSchema,
  description: roleDescriptionSchema,
  permissions: z.array(z.enum(PERMISSION_KEYS as [string, ...string[]])).max(100),
});

export const updateRoleSchema = z.object({
  roleId: z.string().uuid(),
  label: roleLabelSchema,
  translations: roleTranslationsSchema,
  description: roleDescriptionSchema,
  permissions: z.array(z.enum(PERMISSION_KEYS as [string, ...string[]])).max(100),
});

const permissionList = z.array(z.enum(PERMISSION_KEYS as [string, ...string[]])).max(100);

/**
 * The whole role × permission matrix in one form: every role the actor may edit, with its label
 * and the permissions ticked. Roles left out stay as they are.
 */
export const saveMatrixSchema = z.object({
  roles: z
    .array(
      z.object({
        roleId: z.string().uuid(),
        label: roleLabelSchema,
        translations: roleTranslationsSchema,
        description: roleDescriptionSchema,
        permissions: permissionList,
      }),
    )
    .min(1, "access.rolesEmpty")
    .max(100)
    .refine((roles) => new Set(roles.map((r) => r.roleId)).size === roles.length, "access.roleOnce"),
});

/** `PATCH /api/roles/:name`: any of the fields; an unknown one is refused rather than ignored. */
/** A request may ask for a role for a month at most. */
export const MAX_REQUEST_HOURS = 720;

/** A role's session limits (decision 051): idle minutes up to 30 days, a longest session up to a year. */
const idleMinutes = z.number().int().min(1).max(43_200);
const sessionHours = z.number().int().min(1).max(8_760);

export const patchRoleSchema = z
  .object({
    label: roleLabelSchema.optional(),
    translations: roleTranslationsSchema.optional(),
    // No default here: a PATCH that leaves the description out keeps it.
    description: roleDescriptionText.optional(),
    permissions: permissionList.optional(),
    requestable: z.boolean().optional(),
    maxRequestHours: z.number().int().min(1).max(MAX_REQUEST_HOURS).nullable().optional(),
    allowedNetworks: networksSchema.optional(),
    // null: the global limits apply to the role's holders.
    sessionIdleMinutes: idleMinutes.nullable().optional(),
    sessionMaxHours: sessionHours.nullable().optional(),
  })
  .strict()
  .refine((v) => v.requestable !== true || v.maxRequestHours !== null, {
    path: ["maxRequestHours"],
    message: "access.request.hoursNeeded",
  });

/** `GET /api/access/who`: everyone holding a permission (in a team), paged, or as CSV. */
export const whoQuery = z.object({
  permission: z.string(),
  team: z.string().uuid().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  format: z.enum(["json", "csv"]).default("json"),
});

/** The roles tab's "can be asked for" form: blank hours, nobody may ask. */
export const requestHoursSchema = z.object({
  roleId: z.string().uuid(),
  hours: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z.coerce.number().int().min(1).max(MAX_REQUEST_HOURS).optional(),
  ),
});

/**
 * The role page's network rule: one range per line (or separated by commas or spaces); blank, the
 * role may be used from anywhere. `intent=preview` shows who it would have refused, `save` sets it.
 */
export const roleNetworksSchema = z.object({
  roleId: z.string().uuid(),
  networks: z.preprocess(
    (v) =>
      typeof v === "string"
        ? v
            .split(/[\s,]+/)
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    networksSchema,
  ),
});

// access-request-schemas has the twin, but imports this module: one more import would be a cycle.
const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

/** The role page's session limits: blank, the global ones apply. */
export const roleSessionLimitsSchema = z.object({
  roleId: z.string().uuid(),
  idleMinutes: z.preprocess(blankToUndefined, z.coerce.number().pipe(idleMinutes).optional()),
  maxHours: z.preprocess(blankToUndefined, z.coerce.number().pipe(sessionHours).optional()),
});

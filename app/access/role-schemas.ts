import { z } from "zod";
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
const roleDescriptionSchema = z
  .string()
  .trim()
  .max(ROLE_DESCRIPTION_MAX)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .regex(/^[^\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]*$/, "validation.oneLine")
  .default("");

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
export const patchRoleSchema = z
  .object({
    label: roleLabelSchema.optional(),
    translations: roleTranslationsSchema.optional(),
    description: roleDescriptionSchema.optional(),
    permissions: permissionList.optional(),
  })
  .strict();

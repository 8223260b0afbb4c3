import { z } from "zod";

// A directory's settings (Settings → Directory and `npm run scim:token`), browser and server alike.

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** "example.com, Example.org" or one per line → ["example.com", "example.org"]. */
const domainsField = z
  .string()
  .max(2000, "validation.maxLength")
  .transform((s) => [
    ...new Set(
      s
        .split(/[\s,;]+/)
        .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
        .filter(Boolean),
    ),
  ])
  .superRefine((domains, ctx) => {
    if (domains.length === 0) ctx.addIssue({ code: "custom", message: "directory.domains" });
    for (const domain of domains)
      if (!DOMAIN.test(domain))
        ctx.addIssue({ code: "custom", message: "directory.domain", params: { domain } });
  });

/** The form's mapping rows; a row without a group name is an unused one and is dropped. */
const groupRolesField = z
  .array(
    z.object({
      group: z.string().trim().max(120, "validation.maxLength").default(""),
      roleId: z.string().max(64).default(""),
      team: z.boolean().default(false),
    }),
  )
  .max(100)
  .default([])
  .superRefine((rows, ctx) => {
    rows.forEach((row, i) => {
      if (row.group && !row.roleId)
        ctx.addIssue({ code: "custom", path: [i, "roleId"], message: "directory.groupRole" });
    });
  })
  .transform((rows) => rows.filter((r) => r.group));

export const directorySchema = z.object({
  name: z.string().trim().min(1, "validation.name").max(80, "validation.maxLength"),
  domains: domainsField,
  defaultRoleId: z
    .string()
    .max(64)
    .nullable()
    .default(null)
    .transform((v) => v || null),
  groupRoles: groupRolesField,
  sendPasswordLink: z.boolean().default(false),
});
export type DirectoryInput = z.output<typeof directorySchema>;

export const updateDirectorySchema = directorySchema.extend({ id: z.string().min(1).max(64) });
export const directoryIdSchema = z.object({ id: z.string().min(1).max(64) });

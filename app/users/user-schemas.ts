import { z } from "zod";
import { newPasswordField, roleIdsField } from "../auth/account-schemas";
import { emailField } from "../email-address";
import { ROLE_CHANGE_MODES } from "./role-change";

// The users pages' forms, one schema each, checked in the browser (conform) and by the actions.
// The account rules are the ones of the public forms (app/auth/account-schemas.ts).

export const createUserSchema = z.object({
  name: z.string().trim().min(1, "validation.name").max(120),
  email: emailField,
  password: newPasswordField,
  roles: roleIdsField,
});

export const updateUserSchema = z.object({
  name: z.string().trim().min(1, "validation.name").max(120),
  email: emailField,
  roles: roleIdsField,
});

// The users list's bulk bar (app/users/bulk-intents.server.ts): the people ticked on the page, or
// "all matching", whose filters the server reads from the page's own address.
const chosen = (message: string) =>
  z.preprocess((v) => (v === "" ? undefined : v), z.string({ message }).uuid(message));
const bulkBase = z.object({
  scope: z.enum(["selected", "matching"]).default("selected"),
  ids: z.array(z.string().uuid("users.selectSome")).max(100).default([]),
});
const someChosen = <T extends z.infer<typeof bulkBase>>(v: T) => v.scope === "matching" || v.ids.length > 0;
export const bulkSchema = bulkBase.refine(someChosen, { message: "users.selectSome", path: ["ids"] });
export const bulkRoleSchema = bulkBase
  .extend({ roleId: chosen("users.bulk.chooseRole") })
  .refine(someChosen, { message: "users.selectSome", path: ["ids"] });
export const bulkRolesSchema = bulkBase
  .extend({
    mode: z.enum(ROLE_CHANGE_MODES, "users.bulk.chooseMode"),
    roleIds: z.array(z.string().uuid("users.bulk.chooseRole")).max(50).default([]),
  })
  .refine(someChosen, { message: "users.selectSome", path: ["ids"] })
  .refine((v) => v.mode === "replace" || v.roleIds.length > 0, {
    message: "users.bulk.chooseRole",
    path: ["roleIds"],
  });
export const bulkTeamSchema = bulkBase
  .extend({ teamId: chosen("users.bulk.chooseTeam") })
  .refine(someChosen, { message: "users.selectSome", path: ["ids"] });

/** POST /api/users/:id/roles (and the team page's "grant in this team"). */
export const grantInput = z
  .object({
    role: z.string().trim().min(1).max(64),
    team: z.string().uuid().optional(),
    expiresAt: z.string().datetime({ offset: true }).optional(),
  })
  .strict();

/** The user page's "grant a role within a team": the grant ends at the end of `until` (UTC). */
export const grantInTeamSchema = z.object({
  role: z.string().trim().min(1, "access.grant.roleUnknown").max(64),
  team: z.string({ message: "access.grant.teamUnknown" }).uuid("access.grant.teamUnknown"),
  // An empty date box is no end.
  until: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "access.grant.expiresPast")
      .optional(),
  ),
});

/** The team page's "grant a role in this team": a member, a role, an optional last day. */
export const teamGrantSchema = grantInTeamSchema.omit({ team: true }).extend({
  userId: z.string({ message: "users.notFound" }).uuid("users.notFound"),
});

/** `POST /api/undo` (a form): the token a toast's Undo carries (app/users/undo.server.ts). */
export const undoRequest = z.object({ token: z.string().min(1).max(200) });

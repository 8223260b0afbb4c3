import { z } from "zod";
import { newPasswordField, roleIdsField } from "../auth/account-schemas";
import { emailField } from "../email-address";

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

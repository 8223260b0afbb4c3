import { z } from "zod";

// Outside every domain: the environment (EMAIL_FROM, SUPER_ADMIN_EMAIL) is read with it too.

/** The one email address rule: forms, invitations, the seed, the environment and the sender setting. */
export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "validation.maxLength")
  .pipe(z.email("validation.email"));

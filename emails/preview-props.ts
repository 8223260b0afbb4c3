import { EMAIL_TYPES, type EmailType } from "./email-texts";
import type { TransactionalEmailProps } from "./transactional-email";

// Sample props per type for the preview (`npm run email:dev`): one with a name (also in German), one without.
const SAMPLE_LINKS: Record<EmailType, string> = {
  verification: "http://localhost:3000/api/auth/verify-email?token=sample",
  "reset-password": "http://localhost:3000/reset-password?token=sample",
  "password-changed": "http://localhost:3000/dashboard/settings/security",
  invite: "http://localhost:3000/accept-invite?token=sample",
  "two-factor-reset": "http://localhost:3000/dashboard/settings/security#two-factor",
  "settings-changed": "http://localhost:3000/dashboard/settings/system",
  "sign-in-alert": "http://localhost:3000/account/not-me?token=sample",
  "sessions-ended": "http://localhost:3000/login",
  notification: "http://localhost:3000/dashboard",
};

export const PREVIEWS: { name: string; props: TransactionalEmailProps }[] = EMAIL_TYPES.flatMap((type) => [
  { name: `${type}`, props: { type, actionUrl: SAMPLE_LINKS[type], userName: "Ada Lovelace" } },
  {
    name: `${type}-de`,
    props: { type, actionUrl: SAMPLE_LINKS[type], userName: "Ada Lovelace", language: "de" },
  },
  {
    name: `${type}-custom-message`,
    props: { type, actionUrl: SAMPLE_LINKS[type], message: "A custom message replaces the default one." },
  },
]);

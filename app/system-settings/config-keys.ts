import { z } from "zod";
import { DEFAULT_ROLE_FOR_NEW_USERS } from "../access/roles";
import { APP_NAME } from "../config";
import { emailField } from "../email-address";
import { HIDDEN_IN_LINE } from "../http/hidden-characters";
import type { MessageKey } from "../i18n/message";

// Every setting an admin may store in the database, declared once; UI, validation and reads derive from this.

export const DEFAULT_EMAIL_FROM = "no-reply@example.com";

/** The value becomes a mail header, where a line break would start another header (Bcc: …). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const oneLine = (v: string) => !CONTROL.test(v);
const ONE_LINE: MessageKey = "validation.oneLine";

const senderSchema = z
  .string()
  .trim()
  .max(254)
  .refine(oneLine, ONE_LINE)
  .refine((v) => {
    const named = /^([^<>]*)<([^<>]+)>$/.exec(v);
    return emailField.safeParse(named ? named[2] : v).success;
  }, "settings.sender");

export const SYSTEM_CONFIG = {
  MAIL_API_KEY: {
    label: "Mail API key (Postmark server token)",
    help: "Leave empty to keep the stored key. Without any key, mail goes to the development outbox.",
    secret: true,
    // Sent as an HTTP header: a space or line break would fail every email (or add a header).
    schema: z
      .string()
      .trim()
      .min(8, "settings.tokenShort")
      .max(200)
      .regex(/^[\x21-\x7e]+$/, "settings.tokenFormat"),
    envVar: "MAIL_API_KEY",
    fixedDefault: undefined,
    superAdminOnly: "mail_routing",
  },
  EMAIL_FROM: {
    label: "Sender address",
    help: "For example: Acme <no-reply@acme.test>. It must be a confirmed sender at the provider.",
    secret: false,
    schema: senderSchema,
    envVar: "EMAIL_FROM",
    fixedDefault: DEFAULT_EMAIL_FROM,
    superAdminOnly: "mail_routing",
  },
  APP_NAME: {
    label: "Application name",
    help: "Shown in the sidebar, page titles and email headings.",
    secret: false,
    // In every mail's heading: nothing hidden or reordered (the link check is the server's, update-settings).
    schema: z
      .string()
      .trim()
      .min(1, "validation.name")
      .max(60)
      .refine((v) => !HIDDEN_IN_LINE.test(v), ONE_LINE),
    envVar: "APP_NAME",
    fixedDefault: APP_NAME,
    superAdminOnly: false,
  },
  AUDIT_RETENTION_DAYS: {
    label: "Audit log retention (days)",
    help: "Audit entries older than this are deleted by the daily cleanup.",
    secret: false,
    schema: z
      .string()
      .trim()
      .regex(/^\d+$/, "settings.wholeDays")
      .refine((v) => Number(v) >= 1 && Number(v) <= 3650, "settings.daysRange"),
    envVar: "AUDIT_RETENTION_DAYS",
    fixedDefault: "365",
    // Shorter retention erases the trail of whoever shortened it.
    superAdminOnly: "audit_trail",
  },
  REGISTRATION: {
    label: "Public registration",
    help: "Whether anyone may create an account from the sign-in page. Open unless closed here or by REGISTRATION=closed.",
    secret: false,
    schema: z.enum(["open", "closed"], "settings.choice"),
    envVar: "REGISTRATION",
    // Open unless closed, so the shared HTTP contract (POST /register) holds for a stock instance.
    fixedDefault: "open",
    superAdminOnly: false,
    choices: ["open", "closed"],
  },
  REGISTRATION_ROLE: {
    label: "Role of self-registered accounts",
    help: "The role an account gets when someone registers. Only roles that grant nothing beyond opening the dashboard are offered; a role that grants more later gives no role at all.",
    secret: false,
    // That the role exists and grants nothing more is checked when saved and when used.
    schema: z
      .string()
      .trim()
      .max(40)
      .regex(/^[a-z][a-z0-9_]*$/, "settings.registrationRole"),
    envVar: "REGISTRATION_ROLE",
    fixedDefault: DEFAULT_ROLE_FOR_NEW_USERS,
    superAdminOnly: false,
    roleChoice: true,
  },
  SIGN_IN_ALERTS: {
    label: "New sign-in alerts",
    help: "An email when an account is signed in from a device and network it has not used before: each person may turn it off, or it is required for everyone.",
    secret: false,
    schema: z.enum(["optional", "required"], "settings.choice"),
    envVar: "SIGN_IN_ALERTS",
    fixedDefault: "optional",
    superAdminOnly: false,
    choices: ["optional", "required"],
  },
  PASSWORD_BREACH_CHECK: {
    label: "Breached passwords",
    help: "New passwords are checked against known breaches (only the first 5 characters of their SHA-1 leave the server): refused, accepted with a warning, or not checked.",
    secret: false,
    schema: z.enum(["block", "warn", "off"], "settings.choice"),
    envVar: "PASSWORD_BREACH_CHECK",
    fixedDefault: "block",
    superAdminOnly: false,
    choices: ["block", "warn", "off"],
  },
  SESSION_IDLE_MINUTES: {
    label: "Idle session timeout (minutes)",
    help: "A session nobody has used for this long ends at its next request. Empty: sessions end only when their lifetime is over. A role may set a shorter one.",
    secret: false,
    schema: z
      .string()
      .trim()
      .regex(/^(\d+)?$/, "settings.wholeMinutes")
      .refine((v) => v === "" || (Number(v) >= 1 && Number(v) <= 43_200), "settings.minutesRange"),
    envVar: "SESSION_IDLE_MINUTES",
    fixedDefault: undefined,
    superAdminOnly: false,
  },
} as const satisfies Record<
  string,
  {
    label: string;
    help: string;
    secret: boolean;
    schema: z.ZodType<string>;
    envVar: string;
    fixedDefault: string | undefined;
    superAdminOnly: SuperAdminRule | false;
    choices?: readonly string[];
    roleChoice?: true;
  }
>;

/**
 * Why a change is a super admin's, with the password again, and tells every super admin
 * (docs/rules.md, "Mail routing and the audit trail"): where account mail goes, or shortening the audit trail.
 */
export type SuperAdminRule = "mail_routing" | "audit_trail";

export function superAdminRuleOf(key: ConfigKey): SuperAdminRule | null {
  return SYSTEM_CONFIG[key].superAdminOnly || null;
}

/** A retention that is not a number on either side counts as shortened. */
export function superAdminRuleFor(
  key: ConfigKey,
  before: string | null | undefined,
  after: string | null | undefined,
): SuperAdminRule | null {
  const rule = superAdminRuleOf(key);
  if (rule !== "audit_trail") return rule;
  return Number(after) >= Number(before) ? null : rule;
}

export type ConfigKey = keyof typeof SYSTEM_CONFIG;

export const CONFIG_KEYS = Object.keys(SYSTEM_CONFIG) as ConfigKey[];

export function isConfigKey(value: unknown): value is ConfigKey {
  return typeof value === "string" && value in SYSTEM_CONFIG;
}

type ConfigSource = "database" | "environment" | "default" | "unset";

/** Secrets only as "set" plus their last four characters. */
export type ConfigView = {
  key: ConfigKey;
  label: string;
  help: string;
  secret: boolean;
  locked: boolean;
  restriction: SuperAdminRule | null;
  source: ConfigSource;
  value: string | null;
  hint: string | null;
  updatedAt: string | null;
  choices: readonly string[] | null;
  roles: { name: string; label: string }[] | null;
};

import { z } from "zod";
import { DEFAULT_ROLE_FOR_NEW_USERS } from "../access/roles";
import { APP_NAME } from "../config";
import { emailField } from "../email-address";
import type { MessageKey } from "../i18n/message";

// Every setting an admin may store in the database, declared once: its type (a zod schema),
// whether it is secret, whether only a super admin may change it (and why), and where its fallback
// comes from. UI, validation and reads derive from this.

/** Sender used when neither Settings nor the environment names one. */
export const DEFAULT_EMAIL_FROM = "no-reply@example.com";

/**
 * `address` or `Name <address>`, the address by the one email rule. No control characters at all:
 * the value becomes a mail header, where a line break would start another header (Bcc: …).
 */
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
    // Also the heading (and test subject) of every email.
    schema: z.string().trim().min(1, "validation.name").max(60).refine(oneLine, ONE_LINE),
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
    // Shorter retention erases the trail of whoever shortened it (the daily cleanup).
    superAdminOnly: "audit_trail",
  },
  REGISTRATION: {
    label: "Public registration",
    help: "Whether anyone may create an account from the sign-in page. Open unless closed here or by REGISTRATION=closed.",
    secret: false,
    schema: z.enum(["open", "closed"], "settings.choice"),
    envVar: "REGISTRATION",
    // Open unless closed: the shared HTTP contract (POST /register creates an account) holds for a
    // stock instance; an operator closes it here or with REGISTRATION=closed.
    fixedDefault: "open",
    superAdminOnly: false,
    choices: ["open", "closed"],
  },
  REGISTRATION_ROLE: {
    label: "Role of self-registered accounts",
    help: "The role an account gets when someone registers. Only roles that grant nothing beyond opening the dashboard are offered; a role that grants more later gives no role at all.",
    secret: false,
    // A role's name; that it exists and grants nothing more is checked when saved and when used
    // (app/access/self-registration.ts).
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
} as const satisfies Record<
  string,
  {
    label: string;
    help: string;
    secret: boolean;
    schema: z.ZodType<string>;
    envVar: string;
    fixedDefault: string | undefined;
    /** See SuperAdminRule: false when anyone with settings.manage may change it. */
    superAdminOnly: SuperAdminRule | false;
    /** The only values it takes, offered as a choice (settings:system.choices.<value>). */
    choices?: readonly string[];
    /** Its value names a role, offered among the roles it may name (describeSystemConfig). */
    roleChoice?: true;
  }
>;

/**
 * Why a change of a setting is a super admin's, who enters their password again for it; every such
 * change tells every super admin (docs/rules.md, "Mail routing and the audit trail"):
 * - `mail_routing`: it decides where account mail (reset, verification and invitation links) goes
 *   or whom it claims to come from, so every change, a reset included;
 * - `audit_trail`: it decides how long the audit log keeps what admins did, so every change that
 *   shortens it (lengthening stays open to admins).
 */
export type SuperAdminRule = "mail_routing" | "audit_trail";

/** The rule that may make a change of `key` a super admin's (see SuperAdminRule), or null. */
export function superAdminRuleOf(key: ConfigKey): SuperAdminRule | null {
  return SYSTEM_CONFIG[key].superAdminOnly || null;
}

/**
 * The rule that makes the change of `key` from the effective value `before` to `after` a super
 * admin's, or null when anyone with settings.manage may make it. A retention that is not a number
 * on either side counts as shortened.
 */
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

/** Where the effective value of a setting comes from, as the Settings page shows it. */
type ConfigSource = "database" | "environment" | "default" | "unset";

/** What the browser may see about a setting: secrets only as "set" plus their last four characters. */
export type ConfigView = {
  key: ConfigKey;
  label: string;
  help: string;
  secret: boolean;
  /** A setting the viewer may not change at all (a mail routing setting, and they are no super admin). */
  locked: boolean;
  /** What the viewer may not do with it, and why (SuperAdminRule): null for super admins. */
  restriction: SuperAdminRule | null;
  source: ConfigSource;
  value: string | null;
  hint: string | null;
  updatedAt: string | null;
  choices: readonly string[] | null;
  /** For a setting that names a role: the roles offered, by name and stored label. */
  roles: { name: string; label: string }[] | null;
};

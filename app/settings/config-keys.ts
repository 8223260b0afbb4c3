import { z } from "zod";
import { APP_NAME } from "../config";
import { emailField } from "../email-address";

// Every setting an admin may store in the database, declared once: its type (a zod schema),
// whether it is secret, whether it routes mail, and where its fallback comes from. UI, validation and reads derive from this.

/** Sender used when neither Settings nor the environment names one. */
export const DEFAULT_EMAIL_FROM = "no-reply@example.com";

/**
 * `address` or `Name <address>`, the address by the one email rule. No control characters at all:
 * the value becomes a mail header, where a line break would start another header (Bcc: …).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const oneLine = (v: string) => !CONTROL.test(v);
const ONE_LINE = "Use one line without control characters.";

const senderSchema = z
  .string()
  .trim()
  .max(254)
  .refine(oneLine, ONE_LINE)
  .refine((v) => {
    const named = /^([^<>]*)<([^<>]+)>$/.exec(v);
    return emailField.safeParse(named ? named[2] : v).success;
  }, "Enter an email address, or a name and <address>.");

export const SYSTEM_CONFIG = {
  MAIL_API_KEY: {
    label: "Mail API key (Postmark server token)",
    help: "Leave empty to keep the stored key. Without any key, mail goes to the development outbox.",
    secret: true,
    // Sent as an HTTP header: a space or line break would fail every email (or add a header).
    schema: z
      .string()
      .trim()
      .min(8, "Too short for a Postmark server token.")
      .max(200)
      .regex(/^[\x21-\x7e]+$/, "Paste the token as the provider shows it: no spaces or line breaks."),
    envVar: "MAIL_API_KEY",
    fixedDefault: undefined,
    mailRouting: true,
  },
  EMAIL_FROM: {
    label: "Sender address",
    help: "For example: Acme <no-reply@acme.test>. It must be a confirmed sender at the provider.",
    secret: false,
    schema: senderSchema,
    envVar: "EMAIL_FROM",
    fixedDefault: DEFAULT_EMAIL_FROM,
    mailRouting: true,
  },
  APP_NAME: {
    label: "Application name",
    help: "Shown in the sidebar, page titles and email headings.",
    secret: false,
    // Also the heading (and test subject) of every email.
    schema: z.string().trim().min(1, "Enter a name.").max(60).refine(oneLine, ONE_LINE),
    envVar: "APP_NAME",
    fixedDefault: APP_NAME,
    mailRouting: false,
  },
  AUDIT_RETENTION_DAYS: {
    label: "Audit log retention (days)",
    help: "Audit entries older than this are deleted by the daily cleanup.",
    secret: false,
    schema: z
      .string()
      .trim()
      .regex(/^\d+$/, "Enter a whole number of days.")
      .refine((v) => Number(v) >= 1 && Number(v) <= 3650, "Between 1 and 3650 days."),
    envVar: "AUDIT_RETENTION_DAYS",
    fixedDefault: "365",
    mailRouting: false,
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
    /**
     * Decides where account mail (reset, verification and invitation links) goes or whom it
     * claims to come from: only a super admin who enters their password again changes it, and
     * every change tells every super admin (docs/rules.md, "Mail routing").
     */
    mailRouting: boolean;
  }
>;

/** The settings that decide where account mail goes (see `mailRouting`). */
export function isMailRouting(key: ConfigKey): boolean {
  return SYSTEM_CONFIG[key].mailRouting;
}

export type ConfigKey = keyof typeof SYSTEM_CONFIG;

export const CONFIG_KEYS = Object.keys(SYSTEM_CONFIG) as ConfigKey[];

export function isConfigKey(value: unknown): value is ConfigKey {
  return typeof value === "string" && value in SYSTEM_CONFIG;
}

/** Where the effective value of a setting comes from, as the Settings page shows it. */
export type ConfigSource = "database" | "environment" | "default" | "unset";

/** What the browser may see about a setting: secrets only as "set" plus their last four characters. */
export type ConfigView = {
  key: ConfigKey;
  label: string;
  help: string;
  secret: boolean;
  /** A mail routing setting the viewer may not change (they are no super admin). */
  locked: boolean;
  source: ConfigSource;
  value: string | null;
  hint: string | null;
  updatedAt: string | null;
};

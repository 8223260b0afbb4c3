import type { TFunction } from "i18next";
import { i18nFor, tFor } from "../app/i18n/i18n.server";
import { FALLBACK_LANGUAGE } from "../app/i18n/options";
import { defang, fillTemplate } from "./template-text";

// The one table of email types; their texts live in app/locales/<language>/emails.json. Adding a
// type: add it here (the enum derives from the keys) with its texts in every language, add a
// sender in app/mail/senders.server.ts and call it from a route.

export type EmailTexts = { subject: string; label: string; message: string; button: string };

// Literal keys, so app/i18n/locales.test.ts checks each exists.
const TEXTS = {
  verification: (t: TFunction) => ({
    subject: t("emails:verification.subject"),
    label: t("emails:verification.label"),
    message: t("emails:verification.message"),
    button: t("emails:verification.button"),
  }),
  "reset-password": (t: TFunction) => ({
    subject: t("emails:resetPassword.subject"),
    label: t("emails:resetPassword.label"),
    message: t("emails:resetPassword.message"),
    button: t("emails:resetPassword.button"),
  }),
  "password-changed": (t: TFunction) => ({
    subject: t("emails:passwordChanged.subject"),
    label: t("emails:passwordChanged.label"),
    message: t("emails:passwordChanged.message"),
    button: t("emails:passwordChanged.button"),
  }),
  invite: (t: TFunction) => ({
    subject: t("emails:invite.subject"),
    label: t("emails:invite.label"),
    message: t("emails:invite.message"),
    button: t("emails:invite.button"),
  }),
  "two-factor-reset": (t: TFunction) => ({
    subject: t("emails:twoFactorReset.subject"),
    label: t("emails:twoFactorReset.label"),
    message: t("emails:twoFactorReset.message"),
    button: t("emails:twoFactorReset.button"),
  }),
  "settings-changed": (t: TFunction) => ({
    subject: t("emails:settingsChanged.subject"),
    label: t("emails:settingsChanged.label"),
    message: t("emails:settingsChanged.message"),
    button: t("emails:settingsChanged.button"),
  }),
  "sign-in-alert": (t: TFunction) => ({
    subject: t("emails:signInAlert.subject"),
    label: t("emails:signInAlert.label"),
    message: t("emails:signInAlert.message"),
    button: t("emails:signInAlert.button"),
  }),
  "sessions-ended": (t: TFunction) => ({
    subject: t("emails:sessionsEnded.subject"),
    label: t("emails:sessionsEnded.label"),
    message: t("emails:sessionsEnded.message"),
    button: t("emails:sessionsEnded.button"),
  }),
  notification: (t: TFunction) => ({
    subject: t("emails:notification.subject"),
    label: t("emails:notification.label"),
    message: t("emails:notification.message"),
    button: t("emails:notification.button"),
  }),
} as const satisfies Record<string, (t: TFunction) => EmailTexts>;

export type EmailType = keyof typeof TEXTS;

export const EMAIL_TYPES = Object.keys(TEXTS) as [EmailType, ...EmailType[]];

/** The language an email is written in: the one asked for when we have it, else English. */
export function emailLanguage(language?: string | null): string {
  return i18nFor(language ?? FALLBACK_LANGUAGE).language;
}

/** A type's subject, label, message and button in a language (English when it is not one of ours). */
export function emailTexts(type: EmailType, language?: string | null): EmailTexts {
  return TEXTS[type](tFor(language));
}

export function emailFooter(language?: string | null): string {
  return tFor(language)("emails:footer");
}

function emailGreeting(name: string, language?: string | null): string {
  return tFor(language)("emails:greeting", { name });
}

/** What an organisation may word its own way, per type and language (docs/rules.md, "Email templates"). */
export const TEMPLATE_FIELDS = ["subject", "heading", "message", "button", "footer"] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];
export type TemplateTexts = Record<TemplateField, string>;

export const TEMPLATE_LIMITS: Record<TemplateField, { maximum: number; multiline: boolean }> = {
  subject: { maximum: 150, multiline: false },
  heading: { maximum: 1000, multiline: false },
  message: { maximum: 1000, multiline: true },
  button: { maximum: 1000, multiline: false },
  footer: { maximum: 1000, multiline: true },
};

/** Each type's placeholders: the values its sender has for every mail of the type. */
export const PLACEHOLDERS: Record<EmailType, readonly string[]> = {
  verification: ["appName", "userName", "expiresIn"],
  "reset-password": ["appName", "userName", "expiresIn"],
  "password-changed": ["appName", "userName"],
  invite: ["appName", "inviterName", "expiresIn"],
  "two-factor-reset": ["appName", "userName"],
  "settings-changed": ["appName", "userName"],
  "sign-in-alert": ["appName", "userName"],
  "sessions-ended": ["appName", "userName"],
  notification: ["appName", "userName"],
};

/**
 * Sign-in, verification, reset, invitation and security notices: the mails whose button a
 * person trusts with their account, so only a super admin words them (decision 052).
 */
const GUARDED: readonly EmailType[] = [
  "verification",
  "reset-password",
  "password-changed",
  "invite",
  "two-factor-reset",
  "settings-changed",
  "sign-in-alert",
  "sessions-ended",
];

export function templateNeedsSuperAdmin(type: EmailType): boolean {
  return GUARDED.includes(type);
}

/** The product's own words for a type in a language, as a template (`{{appName}}: …`). */
export function defaultTemplate(type: EmailType, language?: string | null): TemplateTexts {
  const t = tFor(language);
  const texts = emailTexts(type, language);
  // A value is never read as a template (skipOnVariables), so "{{appName}}" stays as written.
  return {
    subject: texts.subject,
    heading: t("emails:heading", { appName: "{{appName}}", label: texts.label }),
    message:
      type === "invite" ? t("emails:invite.fromInviter", { inviter: "{{inviterName}}" }) : texts.message,
    button: texts.button,
    footer: t("emails:footer"),
  };
}

/** A customisation's fields over the defaults (an empty or absent field keeps the default's words). */
export function templateTexts(
  type: EmailType,
  language: string | null | undefined,
  custom: Partial<Record<TemplateField, string | null>> | null | undefined,
): TemplateTexts {
  const words = defaultTemplate(type, language);
  for (const field of TEMPLATE_FIELDS) {
    const own = custom?.[field];
    if (own) words[field] = own;
  }
  return words;
}

/** The words of one mail: the template with its placeholders filled (values defanged). */
export function composeTexts(
  type: EmailType,
  language: string | null | undefined,
  custom: Partial<Record<TemplateField, string | null>> | null | undefined,
  values: Readonly<Record<string, string | undefined>>,
): TemplateTexts {
  const words = templateTexts(type, language, custom);
  return Object.fromEntries(TEMPLATE_FIELDS.map((f) => [f, fillTemplate(words[f], values)])) as TemplateTexts;
}

/** "Hello Ada," with the name defanged like any placeholder's value. */
export function safeGreeting(name: string, language?: string | null): string {
  return emailGreeting(defang(name), language);
}

/** "24 hours", "7 Tage": how long a link works, in the reader's language. */
export function durationText(ms: number, language?: string | null): string {
  const hours = ms / 3_600_000;
  const [value, unit] =
    hours >= 48 ? [hours / 24, "day"] : hours >= 1 ? [hours, "hour"] : [ms / 60_000, "minute"];
  return new Intl.NumberFormat(emailLanguage(language), { style: "unit", unit, unitDisplay: "long" }).format(
    Math.round(value),
  );
}

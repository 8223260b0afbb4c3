import type { TFunction } from "i18next";
import { i18nFor, tFor } from "../app/i18n/i18n.server";
import { FALLBACK_LANGUAGE } from "../app/i18n/options";

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

export function emailGreeting(name: string, language?: string | null): string {
  return tFor(language)("emails:greeting", { name });
}

export function emailHeading(appName: string, type: EmailType, language?: string | null): string {
  return tFor(language)("emails:heading", { appName, label: emailTexts(type, language).label });
}

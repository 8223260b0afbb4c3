// The one table of email texts. Adding a type: add it here (the enum derives from the keys),
// add a sender in app/mail/senders.server.ts and call it from a route.

export const EMAIL_TEXTS = {
  verification: {
    subject: "Verify your email address",
    label: "Verify your email address",
    message:
      "Thanks for signing up. Confirm that this address belongs to you to finish setting up your account. The link works once and expires in 24 hours.",
    button: "Verify email address",
  },
  "reset-password": {
    subject: "Reset your password",
    label: "Reset your password",
    message:
      "We received a request to reset the password of your account. The link works once and expires in one hour.",
    button: "Choose a new password",
  },
  invite: {
    subject: "You have been invited",
    label: "You have been invited",
    message:
      "You have been invited to the dashboard. Choose your name and a password to get started. The invitation expires in 7 days.",
    button: "Accept the invitation",
  },
  "two-factor-reset": {
    subject: "Your two-factor authentication was reset",
    label: "Two-factor authentication reset",
    message:
      "An administrator turned off two-factor authentication for your account. You can sign in with your password alone until you set it up again in Settings. If you did not ask for this, contact your administrator at once.",
    button: "Open Settings",
  },
  notification: {
    subject: "A notice for you",
    label: "Notification",
    message: "There is something new for you in the dashboard.",
    button: "Open the dashboard",
  },
} as const satisfies Record<string, { subject: string; label: string; message: string; button: string }>;

export type EmailType = keyof typeof EMAIL_TEXTS;

export const EMAIL_TYPES = Object.keys(EMAIL_TEXTS) as [EmailType, ...EmailType[]];

export const EMAIL_FOOTER = "If you did not request this email, you can safely ignore it.";

export function emailHeading(appName: string, type: EmailType): string {
  return `${appName}: ${EMAIL_TEXTS[type].label}`;
}

import { durationText, emailLanguage } from "../../emails/email-texts";
import { TOKEN_LIFETIME_MS } from "../config";
import { MailSendError } from "../domain-errors";
import { tFor } from "../i18n/i18n.server";
import { type EmailRequest, sendEmail } from "./send-email.server";
import { MailProviderError, type MailRouting } from "./transport.server";

// Each sender wraps provider errors as "Failed to send <what>: <provider message>".

export async function sendOrFail(
  failure: ConstructorParameters<typeof MailSendError>[0],
  request: EmailRequest,
) {
  try {
    return await sendEmail(request);
  } catch (error) {
    if (error instanceof MailProviderError) throw new MailSendError(failure, error.providerMessage);
    throw error;
  }
}

/** The original specification's email: in English, word for word. */
export function sendVerificationEmail(input: {
  to: string;
  name: string;
  verificationUrl: string;
  language?: string;
}) {
  return sendOrFail("mail.sendFailed.verification", {
    to: input.to,
    type: "verification",
    actionUrl: input.verificationUrl,
    userName: input.name,
    values: { expiresIn: durationText(TOKEN_LIFETIME_MS["verify-email"], input.language) },
    language: input.language,
  });
}

export function sendPasswordResetEmail(input: {
  to: string;
  name: string;
  resetUrl: string;
  language?: string;
}) {
  return sendOrFail("mail.sendFailed.passwordReset", {
    to: input.to,
    type: "reset-password",
    actionUrl: input.resetUrl,
    userName: input.name,
    values: { expiresIn: durationText(TOKEN_LIFETIME_MS["reset-password"], input.language) },
    language: input.language,
  });
}

export function sendInviteEmail(input: {
  to: string;
  inviterName: string;
  acceptUrl: string;
  appName?: string;
  language?: string;
}) {
  return sendOrFail("mail.sendFailed.invitation", {
    to: input.to,
    type: "invite",
    actionUrl: input.acceptUrl,
    values: {
      inviterName: input.inviterName,
      expiresIn: durationText(TOKEN_LIFETIME_MS.invite, input.language),
    },
    language: input.language,
  });
}

export function sendSignInAlertEmail(input: {
  to: string;
  name: string;
  notMeUrl: string;
  when: string;
  device: string;
  network: string;
  ip: string;
  language?: string;
}) {
  const t = tFor(input.language);
  return sendOrFail("mail.sendFailed.signInAlert", {
    to: input.to,
    type: "sign-in-alert",
    actionUrl: input.notMeUrl,
    userName: input.name,
    list: {
      intro: t("emails:signInAlert.intro"),
      items: [
        t("emails:signInAlert.when", { when: input.when }),
        t("emails:signInAlert.device", { device: input.device }),
        t("emails:signInAlert.network", { network: input.network, ip: input.ip }),
      ],
    },
    language: input.language,
  });
}

/** An administrator ended some of the person's sessions: they sign in again, or say it was not expected. */
export function sendSessionsEndedEmail(input: {
  to: string;
  name: string;
  signInUrl: string;
  count: number;
  language?: string;
}) {
  const t = tFor(input.language);
  return sendOrFail("mail.sendFailed.sessionsEnded", {
    to: input.to,
    type: "sessions-ended",
    actionUrl: input.signInUrl,
    userName: input.name,
    // The count is data under the template's message, which an organisation may word its own way.
    list: { intro: t("emails:sessionsEnded.count", { count: input.count }), items: [] },
    language: input.language,
  });
}

export function sendNotificationEmail(input: {
  to: string;
  name?: string;
  subject?: string;
  message?: string;
  actionUrl: string;
  language?: string;
}) {
  return sendOrFail("mail.sendFailed.notification", {
    to: input.to,
    type: "notification",
    subject: input.subject,
    actionUrl: input.actionUrl,
    userName: input.name,
    message: input.message,
    language: input.language,
  });
}

/** The first line names the person who wrote it, so no broadcast reads as the system's own notice (docs/rules.md, "Broadcast"). */
export function sendBroadcastEmail(input: {
  to: string;
  name: string;
  sender: { name: string; email: string } | null;
  title: string;
  message: string;
  actionUrl: string;
  language?: string;
}) {
  const t = tFor(input.language);
  const sender = input.sender?.name ?? "?";
  return sendOrFail("mail.sendFailed.broadcast", {
    to: input.to,
    type: "notification",
    subject: t("emails:notification.broadcastSubject", { sender, title: input.title }),
    actionUrl: input.actionUrl,
    userName: input.name,
    message: input.message,
    list: {
      intro: input.sender
        ? t("emails:notification.broadcastBy", { sender: input.sender.name, email: input.sender.email })
        : t("emails:notification.broadcastByFormer"),
      items: [],
    },
    language: input.language,
  });
}

export function sendTwoFactorResetEmail(input: {
  to: string;
  name: string;
  settingsUrl: string;
  language?: string;
}) {
  return sendOrFail("mail.sendFailed.twoFactorReset", {
    to: input.to,
    type: "two-factor-reset",
    actionUrl: input.settingsUrl,
    userName: input.name,
    language: input.language,
  });
}

/** Never the value; sent `via` the routing in effect before the change. `detail` (who, when, what) follows the template's message. */
export function sendSettingsChangedEmail(input: {
  to: string;
  name: string;
  detail: string;
  settingsUrl: string;
  language?: string;
  via: MailRouting;
}) {
  return sendOrFail("mail.sendFailed.settingsChange", {
    to: input.to,
    type: "settings-changed",
    actionUrl: input.settingsUrl,
    userName: input.name,
    list: { intro: input.detail, items: [] },
    language: input.language,
    via: input.via,
  });
}

/** Lists the passkeys, which stay, so the owner can spot one they never added. */
export function sendPasswordChangedEmail(input: {
  to: string;
  name: string;
  settingsUrl: string;
  passkeys: { name: string; createdAt: string }[];
  language?: string;
}) {
  const t = tFor(input.language);
  const date = new Intl.DateTimeFormat(emailLanguage(input.language), {
    dateStyle: "long",
    timeZone: "UTC",
  });
  return sendOrFail("mail.sendFailed.passwordChanged", {
    to: input.to,
    type: "password-changed",
    actionUrl: input.settingsUrl,
    userName: input.name,
    language: input.language,
    list: input.passkeys.length
      ? {
          intro: t("emails:passwordChanged.passkeys"),
          // The name is the person's data: joined as text, never interpolated by i18next.
          items: input.passkeys.map(
            (p) =>
              `${p.name} (${t("emails:passwordChanged.passkeyAdded", { date: date.format(new Date(p.createdAt)) })})`,
          ),
        }
      : { intro: t("emails:passwordChanged.noPasskeys"), items: [] },
  });
}

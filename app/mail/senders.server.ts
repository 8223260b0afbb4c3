import { MailSendError } from "../domain-errors";
import { type EmailRequest, sendEmail } from "./send-email.server";
import { MailProviderError } from "./transport.server";

// One sender per email type. Each wraps provider errors as "Failed to send <what>: <provider message>".

async function send(what: string, request: EmailRequest) {
  try {
    return await sendEmail(request);
  } catch (error) {
    if (error instanceof MailProviderError)
      throw new MailSendError(what, error.providerMessage, request.type);
    throw error;
  }
}

/** Specification 4.8: subject, type and error message exactly as written there. */
export function sendVerificationEmail(input: { to: string; name: string; verificationUrl: string }) {
  return send("verification email", {
    to: input.to,
    type: "verification",
    subject: "Verify your email address",
    actionUrl: input.verificationUrl,
    userName: input.name,
  });
}

export function sendPasswordResetEmail(input: { to: string; name: string; resetUrl: string }) {
  return send("password reset email", {
    to: input.to,
    type: "reset-password",
    actionUrl: input.resetUrl,
    userName: input.name,
  });
}

export function sendInviteEmail(input: {
  to: string;
  inviterName: string;
  acceptUrl: string;
  appName?: string;
}) {
  return send("invitation email", {
    to: input.to,
    type: "invite",
    actionUrl: input.acceptUrl,
    message: `${input.inviterName} has invited you to the dashboard. Choose your name and a password to get started. The invitation expires in 7 days.`,
  });
}

export function sendNotificationEmail(input: {
  to: string;
  name?: string;
  subject?: string;
  message?: string;
  actionUrl: string;
}) {
  return send("notification email", {
    to: input.to,
    type: "notification",
    subject: input.subject,
    actionUrl: input.actionUrl,
    userName: input.name,
    message: input.message,
  });
}

/** Tells an account that a super admin removed its two-factor authentication. */
export function sendTwoFactorResetEmail(input: { to: string; name: string; settingsUrl: string }) {
  return send("two-factor reset email", {
    to: input.to,
    type: "two-factor-reset",
    actionUrl: input.settingsUrl,
    userName: input.name,
  });
}

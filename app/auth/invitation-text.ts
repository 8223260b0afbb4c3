import type { TFunction } from "i18next";

type Outcome = {
  email: string;
  mail:
    | { sent: true }
    | { sent: false; why: "no_provider" }
    | { sent: false; why: "refused"; problem: string };
};

/**
 * What an inviter is told once an invitation (or a resend) is made: sent, or that its email did
 * not go out and why, never "sent" for a development outbox. `sent` is the page's own success text.
 */
export function invitationOutcomeText(t: TFunction, outcome: Outcome, sent: string): string {
  const { mail, email } = outcome;
  if (mail.sent) return sent;
  return mail.why === "refused"
    ? t("users:invitations.notSent.refused", { email, problem: mail.problem })
    : t("users:invitations.notSent.no_provider", { email });
}

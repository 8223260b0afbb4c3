import { randomUUID } from "node:crypto";
import { selfRegistrationRole } from "../access/self-registration.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { RuleViolation } from "../domain-errors";
import { tFor } from "../i18n/i18n.server";
import { type MailJob, NO_MAIL, startDelivery, timedSend } from "../mail/deliveries.server";
import { mailLanguage } from "../mail/mail-language.server";
import { sendNotificationEmail, sendVerificationEmail } from "../mail/senders.server";
import { type MailOutcome, sendReporting, trySend } from "../mail/try-send.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import { forgotPasswordUrl, verifyEmailUrl } from "./links.server";
import { hashPassword } from "./password.server";
import { issueToken, spendTokens } from "./tokens.server";

// Pre-registration takeover rule. A self-registered account stays "pending" until its address is
// verified. Every registration for a pending address replaces the pending name and password and
// spends the links sent so far; its own link carries the credentials it brought (name and
// password hash in the token's data), and following a link applies exactly those. A resend
// carries the pending (newest) credentials, so it can never revive an earlier registrant's. Once
// verified (or reset by the mailbox's owner), no leftover link changes the credentials again, and
// an account that is not pending is never re-credentialed by a registration at all.
// When a second browser registers a pending address (the owner after an attacker, or an attacker
// after the owner), the owner cannot tell whose link they hold: the account is "contested", and a
// link then applies its password only in the browser that registered it; anywhere else it
// verifies the address and the person who clicked chooses the password (email-verification.server).
// The residue: an address registered once, by someone else, whose owner follows a link they did
// not ask for, verifies that registrant's credentials (as any site's "verify" link would).

/** `binding`: the hash of the registering browser's cookie (registration-binding.server). */
type NewAccount = { name: string; email: string; password: string; binding: string };
type PendingCredentials = { name: string; passwordHash: string };

async function findByEmail(email: string) {
  return db()
    .selectFrom("user")
    .select([
      "id",
      "name",
      "email",
      "email_verified",
      "status",
      "pending_registration",
      "password_hash",
      "registration_binding",
      "locale",
    ])
    .where("email", "=", email)
    .executeTakeFirst();
}
type ExistingUser = NonNullable<Awaited<ReturnType<typeof findByEmail>>>;

const isPending = (u: ExistingUser) =>
  u.status === "active" && u.email_verified !== 1 && u.pending_registration === 1;

/**
 * The job that issues a verification link (with the credentials it applies, if any) and mails it;
 * `report` hears how the email fared (an admin's resend says so, the public forms never do).
 */
function verificationMail(
  origin: AuditOrigin,
  user: { id: string; name: string; email: string; locale?: string | null },
  credentials: PendingCredentials | null,
  report?: (outcome: MailOutcome) => void,
): MailJob {
  return timedSend(async () => {
    const language = await mailLanguage(origin, user.locale);
    const token = await issueToken({
      kind: "verify-email",
      userId: user.id,
      data: credentials ?? undefined,
    });
    const outcome = await sendReporting(origin, { type: "verification", to: user.email }, () =>
      sendVerificationEmail({
        to: user.email,
        name: user.name,
        verificationUrl: verifyEmailUrl(token),
        language,
      }),
    );
    report?.(outcome);
    // As trySend: "check your inbox" counts the development outbox as sent.
    return outcome.sent || outcome.why === "no_provider";
  });
}

function alreadyRegisteredMail(origin: AuditOrigin, user: ExistingUser): MailJob {
  if (user.status !== "active") return NO_MAIL;
  return timedSend(async () => {
    const language = await mailLanguage(origin, user.locale);
    const t = tFor(language);
    return trySend(origin, { type: "notification", to: user.email }, () =>
      sendNotificationEmail({
        to: user.email,
        name: user.name,
        subject: t("emails:alreadyRegistered.subject"),
        message: t("emails:alreadyRegistered.message"),
        actionUrl: forgotPasswordUrl(),
        language,
      }),
    );
  });
}

/**
 * Registers (or re-registers a pending address) and returns the job that mails the link; an
 * address with an account gets a notice instead. Every branch hashes the password, so the answer
 * takes as long whoever asks.
 */
async function registration(origin: AuditOrigin, input: NewAccount): Promise<MailJob> {
  const credentials = { name: input.name, passwordHash: await hashPassword(input.password) };
  const existing = await findByEmail(input.email);
  if (existing) return registrationForExisting(origin, existing, credentials, input.binding);

  // Read before the transaction (SQLite: one connection, and the role cache may query).
  const roleId = await newAccountRole();
  const id = randomUUID();
  const ts = now();
  try {
    await db()
      .transaction()
      .execute(async (tx) => {
        await tx
          .insertInto("user")
          .values({
            id,
            name: input.name,
            email: input.email,
            email_verified: 0,
            pending_registration: 1,
            registration_binding: input.binding,
            password_hash: credentials.passwordHash,
            created_at: ts,
            updated_at: ts,
          })
          .execute();
        // A role deleted meanwhile is skipped, as a role that stopped fitting is (newAccountRole).
        const role = roleId
          ? await tx.selectFrom("role").select("id").where("id", "=", roleId).executeTakeFirst()
          : undefined;
        if (role) await tx.insertInto("user_role").values({ user_id: id, role_id: role.id }).execute();
      });
  } catch (error) {
    // Two sign-ups for one address at once: the loser is answered like any existing address.
    const raced = await findByEmail(input.email);
    if (raced) return registrationForExisting(origin, raced, credentials, input.binding);
    throw error;
  }
  await audit(origin, {
    action: "auth.register",
    actor: { id, email: input.email },
    target: { type: "user", id },
    details: { email: input.email },
  });
  // The account stays even if the mail fails: "check your inbox" offers to try again.
  return verificationMail(origin, { id, name: input.name, email: input.email }, credentials);
}

async function registrationForExisting(
  origin: AuditOrigin,
  user: ExistingUser,
  credentials: PendingCredentials,
  binding: string,
): Promise<MailJob> {
  const pending = isPending(user);
  const contested = pending && user.registration_binding !== binding;
  await audit(origin, {
    action: "auth.register.existing",
    target: { type: "user", id: user.id },
    details: { email: user.email, pending, ...(contested ? { contested } : {}) },
  });
  if (!pending) return alreadyRegisteredMail(origin, user);
  await db()
    .transaction()
    .execute(async (tx) => {
      await tx
        .updateTable("user")
        .set({
          name: credentials.name,
          password_hash: credentials.passwordHash,
          registration_binding: binding,
          ...(contested ? { registration_contested: 1 } : {}),
          updated_at: now(),
        })
        .where("id", "=", user.id)
        .where("pending_registration", "=", 1)
        .execute();
      await spendTokens(user.id, "verify-email", tx);
    });
  return verificationMail(origin, { ...user, name: credentials.name }, credentials);
}

/** A resend for unverified accounts; pending ones get the newest registrant's credentials again. */
async function resend(
  origin: AuditOrigin,
  email: string,
  report?: (outcome: MailOutcome) => void,
): Promise<MailJob> {
  const user = await findByEmail(email);
  const eligible = !!user && user.email_verified !== 1 && user.status === "active";
  await audit(origin, {
    action: "auth.verification.resent",
    target: user ? { type: "user", id: user.id } : null,
    details: { email, sent: eligible },
  });
  if (!eligible) return NO_MAIL;
  const credentials =
    user.pending_registration === 1 && user.password_hash
      ? { name: user.name, passwordHash: user.password_hash }
      : null;
  return verificationMail(origin, user, credentials, report);
}

/** Whether strangers may register: Settings → System (REGISTRATION), open unless closed. */
export async function registrationOpen(): Promise<boolean> {
  return (await getSystemConfig("REGISTRATION")) === "open";
}

/**
 * The role a self-registered account gets (REGISTRATION_ROLE, `user` unless set), checked again
 * now: a role deleted since, or given more than the dashboard since it was chosen, gives no role
 * at all rather than more than intended (app/access/self-registration.server.ts).
 */
async function newAccountRole(): Promise<string | null> {
  const name = await getSystemConfig("REGISTRATION_ROLE");
  const role = await selfRegistrationRole(name);
  if (!role)
    console.warn(
      `[registration] role "${name}" is gone or grants more than the dashboard: the account gets none`,
    );
  return role?.id ?? null;
}

/** POST /register: the answer never waits for the mail; returns the delivery id for check-inbox. */
export async function registerAccount(origin: AuditOrigin, input: NewAccount): Promise<string> {
  if (!(await registrationOpen())) throw new RuleViolation("auth.registrationClosed");
  return startDelivery("register", input.email, await registration(origin, input));
}

/** POST /resend-verification: silent (but "sent") for unknown, verified or disabled accounts. */
export async function startVerificationResend(origin: AuditOrigin, email: string): Promise<string> {
  return startDelivery("resend", email, await resend(origin, email));
}

/** "Try again" after a failed registration mail: the link again, or the notice for an existing account. */
export async function retryRegistrationMail(origin: AuditOrigin, email: string): Promise<string> {
  const user = await findByEmail(email);
  const job = !user
    ? NO_MAIL
    : isPending(user)
      ? await resend(origin, email)
      : alreadyRegisteredMail(origin, user);
  return startDelivery("register", email, job);
}

/** An admin's "send verification link": mails it now and answers how it fared (null: no link due). */
export async function resendVerification(origin: AuditOrigin, email: string): Promise<MailOutcome | null> {
  let outcome: MailOutcome | null = null;
  await (
    await resend(origin, email, (o) => {
      outcome = o;
    })
  )();
  return outcome;
}

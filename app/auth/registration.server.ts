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

// A self-registered account stays "pending" until verified, and a link applies only the credentials
// it was sent with; the full takeover rule is in decision 008.

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

/** `report` hears how the email fared (an admin's resend says so, the public forms never do). */
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

/** Every branch hashes the password, so the answer takes as long whoever asks. */
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
        const role = roleId
          ? await tx.selectFrom("role").select("id").where("id", "=", roleId).executeTakeFirst()
          : undefined;
        if (role) await tx.insertInto("user_role").values({ user_id: id, role_id: role.id }).execute();
      });
  } catch (error) {
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

export async function registrationOpen(): Promise<boolean> {
  return (await getSystemConfig("REGISTRATION")) === "open";
}

/** Checked again now: a role deleted or grown since gives no role rather than more than intended. */
async function newAccountRole(): Promise<string | null> {
  const name = await getSystemConfig("REGISTRATION_ROLE");
  const role = await selfRegistrationRole(name);
  if (!role)
    console.warn(
      `[registration] role "${name}" is gone or grants more than the dashboard: the account gets none`,
    );
  return role?.id ?? null;
}

/** The answer never waits for the mail. */
export async function registerAccount(origin: AuditOrigin, input: NewAccount): Promise<string> {
  if (!(await registrationOpen())) throw new RuleViolation("auth.registrationClosed");
  return startDelivery("register", input.email, await registration(origin, input));
}

/** Silent (but "sent") for unknown, verified or disabled accounts. */
export async function startVerificationResend(origin: AuditOrigin, email: string): Promise<string> {
  return startDelivery("resend", email, await resend(origin, email));
}

export async function retryRegistrationMail(origin: AuditOrigin, email: string): Promise<string> {
  const user = await findByEmail(email);
  const job = !user
    ? NO_MAIL
    : isPending(user)
      ? await resend(origin, email)
      : alreadyRegisteredMail(origin, user);
  return startDelivery("register", email, job);
}

export async function resendVerification(origin: AuditOrigin, email: string): Promise<MailOutcome | null> {
  let outcome: MailOutcome | null = null;
  await (
    await resend(origin, email, (o) => {
      outcome = o;
    })
  )();
  return outcome;
}

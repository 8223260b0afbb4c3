import { randomUUID } from "node:crypto";
import { DEFAULT_ROLE_FOR_NEW_USERS } from "../access/roles";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { sendNotificationEmail, sendVerificationEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { forgotPasswordUrl, verifyEmailUrl } from "./links.server";
import { hashPassword } from "./password.server";
import { consumeToken, issueToken, spendTokens, type TokenProblem } from "./tokens.server";

type NewAccount = { name: string; email: string; password: string };

async function findByEmail(email: string) {
  return db()
    .selectFrom("user")
    .select(["id", "name", "email", "email_verified", "status"])
    .where("email", "=", email)
    .executeTakeFirst();
}

/** Issues a fresh verification link for the user and mails it; false when the mail failed. */
export async function sendVerificationLink(
  origin: AuditOrigin,
  user: { id: string; name: string; email: string },
) {
  const token = await issueToken({ kind: "verify-email", userId: user.id });
  return trySend(origin, { type: "verification", to: user.email }, () =>
    sendVerificationEmail({ to: user.email, name: user.name, verificationUrl: verifyEmailUrl(token) }),
  );
}

/**
 * Creates an unverified account with the default role and mails the verification link.
 * An address that already has an account gets the same outward answer; its owner gets a notice
 * (or, if still unverified, a fresh link), so the form never reveals who has an account.
 */
export async function registerAccount(origin: AuditOrigin, input: NewAccount): Promise<void> {
  const existing = await findByEmail(input.email);
  if (existing) return answerExisting(origin, existing);

  const id = randomUUID();
  const ts = now();
  const passwordHash = await hashPassword(input.password);
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
            password_hash: passwordHash,
            created_at: ts,
            updated_at: ts,
          })
          .execute();
        const role = await tx
          .selectFrom("role")
          .select("id")
          .where("name", "=", DEFAULT_ROLE_FOR_NEW_USERS)
          .executeTakeFirstOrThrow();
        await tx.insertInto("user_role").values({ user_id: id, role_id: role.id }).execute();
      });
  } catch (error) {
    // Two sign-ups for one address at once: the loser is answered like any existing address.
    const raced = await findByEmail(input.email);
    if (raced) return answerExisting(origin, raced);
    throw error;
  }
  const actor = { id, email: input.email };
  await audit(origin, {
    action: "auth.register",
    actor,
    target: { type: "user", id },
    details: { email: input.email },
  });
  // The account stays even if the mail fails: the login page and "check your inbox" offer a new link.
  await sendVerificationLink(origin, { id, name: input.name, email: input.email });
}

async function answerExisting(
  origin: AuditOrigin,
  user: { id: string; name: string; email: string; email_verified: number; status: string },
) {
  await audit(origin, {
    action: "auth.register.existing",
    target: { type: "user", id: user.id },
    details: { email: user.email },
  });
  if (user.status !== "active") return;
  if (user.email_verified !== 1) {
    await sendVerificationLink(origin, user);
    return;
  }
  await trySend(origin, { type: "notification", to: user.email }, () =>
    sendNotificationEmail({
      to: user.email,
      name: user.name,
      subject: "Someone tried to register with your address",
      message:
        "Someone tried to create a new account with this email address, which already has one. If it was you, sign in or reset your password. Otherwise no action is needed.",
      actionUrl: forgotPasswordUrl(),
    }),
  );
}

/** Resend from the login / check-inbox pages: silent for unknown, verified or disabled accounts. */
export async function resendVerification(origin: AuditOrigin, email: string) {
  const user = await findByEmail(email);
  const eligible = !!user && user.email_verified !== 1 && user.status === "active";
  await audit(origin, {
    action: "auth.verification.resent",
    target: user ? { type: "user", id: user.id } : null,
    details: { email, sent: eligible },
  });
  if (eligible) await sendVerificationLink(origin, user);
}

export type VerifyOutcome =
  | { ok: true; kind: "verified" | "email-changed" }
  | { ok: false; reason: TokenProblem | "taken" };

/** Spends a verification (or email-change) token and applies it. */
export async function verifyEmailToken(origin: AuditOrigin, raw: unknown): Promise<VerifyOutcome> {
  return db()
    .transaction()
    .execute(async (tx): Promise<VerifyOutcome> => {
      const check = await consumeToken(["verify-email", "email-change"], raw, tx);
      if (!check.ok) return check;
      const { token } = check;
      const user = await tx
        .selectFrom("user")
        .select(["id", "email"])
        .where("id", "=", token.userId!)
        .executeTakeFirst();
      if (!user) return { ok: false, reason: "invalid" };
      if (token.kind === "email-change") {
        const email = String(token.data.email);
        const taken = await tx
          .selectFrom("user")
          .select("id")
          .where("email", "=", email)
          .where("id", "!=", user.id)
          .executeTakeFirst();
        if (taken) return { ok: false, reason: "taken" };
        await tx
          .updateTable("user")
          .set({ email, email_verified: 1, updated_at: now() })
          .where("id", "=", user.id)
          .execute();
        await audit(
          origin,
          {
            action: "account.email.changed",
            actor: { id: user.id, email },
            target: { type: "user", id: user.id },
            details: { before: user.email, after: email },
          },
          tx,
        );
        return { ok: true, kind: "email-changed" };
      }
      await tx
        .updateTable("user")
        .set({ email_verified: 1, updated_at: now() })
        .where("id", "=", user.id)
        .execute();
      await spendTokens(user.id, "verify-email", tx);
      await audit(
        origin,
        { action: "auth.email.verified", actor: user, target: { type: "user", id: user.id } },
        tx,
      );
      return { ok: true, kind: "verified" };
    });
}

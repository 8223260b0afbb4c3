import { z } from "zod";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { invalidateSessions } from "./session-cache.server";
import { consumeToken, issueToken, spendTokens, type TokenProblem } from "./tokens.server";

export type VerifyOutcome =
  | { ok: true; kind: "verified" | "email-changed" }
  | { ok: true; kind: "choose-password"; resetToken: string }
  | { ok: false; reason: TokenProblem | "taken" };

// What a registration's link carries (decision 008).
const carriedCredentials = z.object({ name: z.string().min(1), passwordHash: z.string().min(1) });

/** A registration's link applies its own credentials only while pending, and when contested only in its own browser. */
export async function verifyEmailToken(
  origin: AuditOrigin,
  raw: unknown,
  binding: string | null = null,
): Promise<VerifyOutcome> {
  const outcome = await db()
    .transaction()
    .execute(async (tx): Promise<VerifyOutcome> => {
      const check = await consumeToken(["verify-email", "email-change"], raw, tx);
      if (!check.ok) return check;
      const { token } = check;
      const user = await tx
        .selectFrom("user")
        .select(["id", "email", "pending_registration", "registration_binding", "registration_contested"])
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
      const carried = carriedCredentials.safeParse(token.data);
      const pending = user.pending_registration === 1 && carried.success;
      const unclaimed = pending && user.registration_contested === 1 && user.registration_binding !== binding;
      const credentials = !pending
        ? {}
        : unclaimed
          ? { password_hash: null }
          : { name: carried.data.name, password_hash: carried.data.passwordHash };
      await tx
        .updateTable("user")
        .set({
          ...credentials,
          email_verified: 1,
          pending_registration: 0,
          registration_binding: null,
          registration_contested: 0,
          updated_at: now(),
        })
        .where("id", "=", user.id)
        .execute();
      await spendTokens(user.id, "verify-email", tx);
      await audit(
        origin,
        {
          action: "auth.email.verified",
          actor: { id: user.id, email: user.email },
          target: { type: "user", id: user.id },
          ...(unclaimed ? { details: { contested: true, passwordChosenByClicker: true } } : {}),
        },
        tx,
      );
      if (unclaimed) {
        const resetToken = await issueToken({ kind: "reset-password", userId: user.id }, tx);
        return { ok: true, kind: "choose-password", resetToken };
      }
      return { ok: true, kind: "verified" };
    });
  if (outcome.ok) await invalidateSessions();
  return outcome;
}

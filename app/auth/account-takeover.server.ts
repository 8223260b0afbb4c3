import { type AuditOrigin, audit } from "../audit/audit.server";
import { type Executor, now } from "../db.server";
import { closeStreamsOf } from "../events/stream.server";
import { revokeAllApiTokens } from "./api-tokens.server";
import { deleteSessions, sessionsEnded } from "./session-end.server";

// A trusted source (a directory over SCIM, an identity provider, an accepted invitation, an
// admin's import, the mailbox itself through a reset link) taking over an account whose address nobody proved: a self-registration never
// verified, or an address an admin corrected. Whoever set its credentials never proved the address,
// so trust moves to the source and nothing they could sign in or call the API with survives
// (docs/decisions/008-public-form-mail-and-pending-registrations.md, "Trusted takeover").

/** Who takes the account over; `actor` is the audit row's actor (the source's own name when it has no id). */
export type TrustedSource = {
  kind: "directory" | "sso" | "invitation" | "import" | "password_reset";
  actor: { id: string | null; email: string };
  /** The directory's, provider's or invitation's own name for itself, for the audit row. */
  name?: string;
  /** A directory provisioning again an address it deleted: the account goes back to the address's new holder. */
  restored?: boolean;
};

/** Whether the account's current credentials were set by someone who never proved its address. */
export function isUnproven(user: { email_verified: number; pending_registration: number }): boolean {
  return user.email_verified !== 1 || user.pending_registration === 1;
}

// Every table that holds a way in for the account's holder (db/schema.ts): each is emptied.
const CREDENTIAL_TABLES = [
  "passkey",
  "passkey_challenge",
  "user_two_factor",
  "two_factor_recovery_code",
  "known_device",
  "oidc_identity",
  "oidc_pending_link",
] as const;

/**
 * In the caller's transaction: the account becomes verified and no longer pending, its password,
 * passkeys, two-factor, known devices, sign-in links, open emailed links and sessions are gone and
 * its API tokens revoked; audited as `account.taken_over`. Returns the ended sessions' ids, for
 * `afterTakeOver` once the transaction has committed.
 */
export async function takeOverUnproven(
  tx: Executor,
  origin: AuditOrigin,
  userId: string,
  source: TrustedSource,
): Promise<string[]> {
  await tx
    .updateTable("user")
    .set({
      password_hash: null,
      must_change_password: 0,
      email_verified: 1,
      pending_registration: 0,
      registration_binding: null,
      registration_contested: 0,
      updated_at: now(),
    })
    .where("id", "=", userId)
    .execute();
  for (const table of CREDENTIAL_TABLES) await tx.deleteFrom(table).where("user_id", "=", userId).execute();
  // Every emailed or pending link of theirs: a verification link carries the registrant's password.
  await tx
    .updateTable("user_token")
    .set({ used_at: now() })
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .execute();
  const revokedApiTokens = await revokeAllApiTokens(userId, tx);
  const endedSessions = await deleteSessions(tx, { userId });
  await audit(
    origin,
    {
      action: "account.taken_over",
      actor: source.actor,
      target: { type: "user", id: userId },
      details: {
        source: source.kind,
        ...(source.name ? { by: source.name } : {}),
        ...(source.restored ? { restored: true } : {}),
        endedSessions: endedSessions.length,
        revokedApiTokens,
      },
    },
    tx,
  );
  return endedSessions;
}

/** After the taking-over transaction committed: the ended sessions' and the account's streams close. */
export async function afterTakeOver(userId: string, endedSessions: string[]) {
  await sessionsEnded(endedSessions);
  closeStreamsOf(userId);
}

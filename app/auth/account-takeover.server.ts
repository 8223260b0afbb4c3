import { type AuditOrigin, audit } from "../audit/audit.server";
import { type Executor, now } from "../db.server";
import { closeStreamsOf } from "../events/stream.server";
import { revokeAllApiTokens } from "./api-tokens.server";
import { deleteSessions, sessionsEnded } from "./session-end.server";

// A trusted source taking over an account whose address nobody proved: nothing its earlier holder
// could sign in or call the API with survives (decision 008, "Trusted takeover").

export type TrustedSource = {
  kind: "directory" | "sso" | "invitation" | "import" | "password_reset";
  actor: { id: string | null; email: string };
  name?: string;
  /** A directory provisioning again an address it deleted. */
  restored?: boolean;
};

export function isUnproven(user: { email_verified: number; pending_registration: number }): boolean {
  return user.email_verified !== 1 || user.pending_registration === 1;
}

// Every table that holds a way in for the account's holder: each is emptied.
const CREDENTIAL_TABLES = [
  "passkey",
  "passkey_challenge",
  "user_two_factor",
  "two_factor_recovery_code",
  "known_device",
  "oidc_identity",
  "oidc_pending_link",
] as const;

/** In the caller's transaction; pass the ended sessions' ids to `afterTakeOver` once committed. */
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
  // A verification link carries the registrant's password.
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

export async function afterTakeOver(userId: string, endedSessions: string[]) {
  await sessionsEnded(endedSessions);
  closeStreamsOf(userId);
}

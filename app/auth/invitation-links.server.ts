import { roleGrants } from "../access/role-cache.server";
import { assertRoleChangeAllowed } from "../access/rules.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import type { MailOutcome } from "../mail/try-send.server";
import { decryptSecret, encryptSecret } from "../security/secret-box.server";
import { acceptInviteUrl } from "./links.server";
import type { SessionUser } from "./session.server";
import { hashToken } from "./tokens.server";

// "Copy invite link": only an invitation whose email did not go out keeps its link, sealed. Nothing of
// the kind exists for password resets: a reset link handed to an admin would let them take the account over.

export type UnsentReason = "no_provider" | "refused";

export type InviteData = {
  email: string;
  roleIds: string[];
  invitedBy: string;
  /** The invitee's language, when the inviter chose one. */
  language?: string;
  unsent?: { why: UnsentReason; sealed: string };
};

export async function keepUnsentLink(id: string, data: InviteData, raw: string, mail: MailOutcome) {
  if (mail.sent) return;
  const unsent = { why: mail.why, sealed: encryptSecret(raw) };
  await db()
    .updateTable("user_token")
    .set({ data: JSON.stringify({ ...data, unsent }) })
    .where("id", "=", id)
    .execute();
}

/** Exactly when they could have sent that invitation themselves. */
export async function mayCopyLink(actor: SessionUser, roleIds: string[]): Promise<boolean> {
  return (await whyNotCopyable(actor, roleIds)) === null;
}

async function whyNotCopyable(actor: SessionUser, roleIds: string[]) {
  const grants = await roleGrants();
  try {
    await assertRoleChangeAllowed(
      actor,
      "invitation",
      [],
      roleIds.filter((id) => grants.has(id)),
    );
    return null;
  } catch (error) {
    if (error instanceof RuleViolation) return error;
    throw error;
  }
}

/** Each reveal is audited, never with the link. */
export async function revealInvitationLink(
  actor: SessionUser,
  input: { id: string },
  origin: AuditOrigin,
): Promise<{ email: string; link: string; expiresAt: string }> {
  const row = await db()
    .selectFrom("user_token")
    .select(["id", "data", "token_hash", "expires_at"])
    .where("id", "=", input.id)
    .where("kind", "=", "invite")
    .where("used_at", "is", null)
    .where("expires_at", ">", now())
    .executeTakeFirst();
  if (!row) throw new NotFound("auth.invitationGone");
  const data = JSON.parse(row.data ?? "{}") as InviteData;
  const target = { type: "invitation", id: data.email };
  if (!data.unsent) throw new RuleViolation("auth.inviteLinkMailed");
  const refusal = await whyNotCopyable(actor, data.roleIds ?? []);
  if (refusal) {
    await audit(origin, {
      action: "user.invite.link_refused",
      actor,
      target,
      details: { email: data.email, reason: refusal.said.key },
    });
    throw refusal;
  }
  const raw = unseal(data.unsent.sealed);
  // The sealed value must be this row's own token, not one copied over from another invitation.
  if (raw === null || hashToken(raw) !== row.token_hash) throw new RuleViolation("auth.inviteLinkLost");
  await audit(origin, {
    action: "user.invite.link_copied",
    actor,
    target,
    details: { email: data.email, why: data.unsent.why },
  });
  return { email: data.email, link: acceptInviteUrl(raw), expiresAt: row.expires_at };
}

/** Null when the encryption key changed since; resending makes a new one. */
function unseal(sealed: string): string | null {
  try {
    return decryptSecret(sealed);
  } catch {
    return null;
  }
}

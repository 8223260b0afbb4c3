import { randomUUID } from "node:crypto";
import { roleGrants } from "../access/role-cache.server";
import { assertRoleChangeAllowed } from "../access/rules.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, type Executor, now } from "../db.server";
import { InvalidInput, NotFound } from "../domain-errors";
import { supportedLanguages } from "../i18n/resources.server";
import { mailLanguage } from "../mail/mail-language.server";
import { sendInviteEmail } from "../mail/senders.server";
import { type MailOutcome, sendReporting } from "../mail/try-send.server";
import { afterTakeOver, isUnproven, takeOverUnproven } from "./account-takeover.server";
import { type InviteData, keepUnsentLink, mayCopyLink, type UnsentReason } from "./invitation-links.server";
import { acceptInviteUrl } from "./links.server";
import { hashPassword } from "./password.server";
import type { SessionUser } from "./session.server";
import { consumeToken, inspectToken, issueTokenRow, type TokenProblem } from "./tokens.server";

export type InviteOutcome = { id: string; email: string; mail: MailOutcome };

/** An invitation accepted takes over a self-registration nobody verified. */
async function holderOf(email: string, executor: Executor) {
  const row = await executor
    .selectFrom("user")
    .select(["id", "status", "directory_id", "email_verified", "pending_registration"])
    .where("email", "=", email)
    .executeTakeFirst();
  if (!row) return null;
  const squatted =
    row.status === "active" && row.directory_id === null && row.pending_registration === 1 && isUnproven(row);
  return { id: row.id, squatted };
}

/** The invitation stands even when its email did not go out; its link is kept for "Copy invite link". */
export async function inviteUser(
  actor: SessionUser,
  input: { email: string; roleIds: string[]; language?: string },
  origin: AuditOrigin,
): Promise<InviteOutcome> {
  await assertRoleChangeAllowed(actor, "invitation", [], input.roleIds);
  const grants = await roleGrants();
  const existing = await holderOf(input.email, db());
  if (existing && !existing.squatted) throw new InvalidInput("auth.inviteAddressTaken", "email");

  // Chosen by the inviter, else unknown: the inviting admin's language is then the best guess.
  const chosen = input.language && supportedLanguages().includes(input.language) ? input.language : undefined;
  const data: InviteData = {
    email: input.email,
    roleIds: input.roleIds,
    invitedBy: actor.id,
    language: chosen,
  };
  const token = await db()
    .transaction()
    .execute(async (trx) => {
      const token = await issueTokenRow({ kind: "invite", userId: null, data }, trx);
      await audit(
        origin,
        {
          action: "user.invite",
          actor,
          target: { type: "invitation", id: input.email },
          details: { email: input.email, roles: input.roleIds.map((id) => grants.get(id)!.name) },
        },
        trx,
      );
      return token;
    });
  const language = chosen ?? (await mailLanguage(origin, actor.locale));
  const mail = await sendReporting(origin, { type: "invite", to: input.email }, () =>
    sendInviteEmail({
      to: input.email,
      inviterName: actor.name,
      acceptUrl: acceptInviteUrl(token.raw),
      language,
    }),
  );
  await keepUnsentLink(token.id, data, token.raw, mail);
  return { id: token.id, email: input.email, mail };
}

export type InvitationView = { ok: true; email: string } | { ok: false; reason: TokenProblem };

export async function describeInvitation(raw: unknown): Promise<InvitationView> {
  const check = await inspectToken(["invite"], raw);
  return check.ok ? { ok: true, email: String(check.token.data.email) } : check;
}

export type AcceptOutcome = { ok: true; userId: string } | { ok: false; reason: TokenProblem | "taken" };

/** The link proves the mailbox, so an unverified self-registration of the address is taken over. */
export async function acceptInvitation(
  origin: AuditOrigin,
  raw: string,
  input: { name: string; password: string },
) {
  const passwordHash = await hashPassword(input.password);
  const takenOver: { id: string; ended: string[] }[] = [];
  const outcome = await db()
    .transaction()
    .execute(async (tx): Promise<AcceptOutcome> => {
      const check = await consumeToken(["invite"], raw, tx);
      if (!check.ok) return check;
      const data = check.token.data as InviteData;
      const holder = await holderOf(data.email, tx);
      if (holder && !holder.squatted) return { ok: false, reason: "taken" };
      const id = holder?.id ?? randomUUID();
      const ts = now();
      const account = {
        name: input.name,
        // The language they were invited in is theirs until they choose another.
        ...(data.language ? { locale: data.language } : {}),
        email_verified: 1,
        password_hash: passwordHash,
        // Recorded here, as every sign-in records it where its proof is checked.
        last_login_at: ts,
        updated_at: ts,
      };
      if (holder) {
        const actor = { id, email: data.email };
        const ended = await takeOverUnproven(tx, origin, id, { kind: "invitation", actor });
        takenOver.push({ id, ended });
        await tx.updateTable("user").set(account).where("id", "=", id).execute();
        await tx.deleteFrom("user_role").where("user_id", "=", id).execute();
      } else
        await tx
          .insertInto("user")
          .values({ id, email: data.email, created_at: ts, ...account })
          .execute();
      const roles = data.roleIds.length
        ? await tx.selectFrom("role").select("id").where("id", "in", data.roleIds).execute()
        : [];
      for (const role of roles)
        await tx.insertInto("user_role").values({ user_id: id, role_id: role.id }).execute();
      await audit(
        origin,
        {
          action: "auth.invite.accepted",
          actor: { id, email: data.email },
          target: { type: "user", id },
          details: { invitedBy: data.invitedBy, ...(holder ? { tookOver: true } : {}) },
        },
        tx,
      );
      return { ok: true, userId: id };
    });
  if (outcome.ok) for (const { id, ended } of takenOver) await afterTakeOver(id, ended);
  return outcome;
}

export type PendingInvitation = {
  id: string;
  email: string;
  roles: string[];
  expiresAt: string;
  createdAt: string;
  unsent: UnsentReason | null;
  mayCopyLink: boolean;
};

export async function pendingInvitations(viewer: SessionUser, limit = 50): Promise<PendingInvitation[]> {
  const [rows, grants] = await Promise.all([
    db()
      .selectFrom("user_token")
      .select(["id", "data", "expires_at", "created_at"])
      .where("kind", "=", "invite")
      .where("used_at", "is", null)
      .where("expires_at", ">", now())
      .orderBy("created_at", "desc")
      .limit(limit)
      .execute(),
    roleGrants(),
  ]);
  return Promise.all(
    rows.map(async (r) => {
      const data = JSON.parse(r.data ?? "{}") as InviteData;
      return {
        id: r.id,
        email: data.email,
        roles: rolesNamed(grants, data.roleIds ?? []),
        expiresAt: r.expires_at,
        createdAt: r.created_at,
        // Never the sealed link itself: only the reveal hands it out, audited.
        unsent: data.unsent?.why ?? null,
        mayCopyLink: !!data.unsent && (await mayCopyLink(viewer, data.roleIds ?? [])),
      };
    }),
  );
}

function rolesNamed(grants: Map<string, { id: string; label: string }>, ids: string[]) {
  const wanted = new Set(ids);
  const known = [...grants.values()].filter((g) => wanted.has(g.id)).map((g) => g.label);
  const gone = [...wanted].filter((id) => !grants.has(id)).map(() => "(deleted role)");
  return [...known, ...gone];
}

async function pendingInvitation(id: string, executor: Executor = db()) {
  return executor
    .selectFrom("user_token")
    .select(["id", "data"])
    .where("id", "=", id)
    .where("kind", "=", "invite")
    .where("used_at", "is", null)
    .where("expires_at", ">", now())
    .executeTakeFirst();
}

async function spendInvitation(actor: SessionUser, id: string, origin: AuditOrigin, trx: Executor) {
  const row = await pendingInvitation(id, trx);
  if (!row) throw new NotFound("auth.invitationGone");
  await trx
    .updateTable("user_token")
    .set({ used_at: now() })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .execute();
  const data = JSON.parse(row.data ?? "{}") as InviteData;
  await audit(
    origin,
    { action: "user.invite.cancel", actor, target: { type: "invitation", id: data.email } },
    trx,
  );
  return data;
}

export async function cancelInvitation(actor: SessionUser, input: { id: string }, origin: AuditOrigin) {
  await db()
    .transaction()
    .execute((trx) => spendInvitation(actor, input.id, origin, trx));
}

/** The roles are checked again: the sender may hold fewer permissions than the original inviter. */
export async function resendInvitation(
  actor: SessionUser,
  input: { id: string },
  origin: AuditOrigin,
): Promise<InviteOutcome> {
  const row = await pendingInvitation(input.id);
  if (!row) throw new NotFound("auth.invitationGone");
  const data = JSON.parse(row.data ?? "{}") as InviteData;
  // The new invitation first: if the sender may not grant those roles, the old link keeps working.
  const outcome = await inviteUser(
    actor,
    { email: data.email, roleIds: data.roleIds ?? [], language: data.language },
    origin,
  );
  await cancelInvitation(actor, input, origin).catch((error) => {
    if (!(error instanceof NotFound)) throw error;
  });
  return outcome;
}

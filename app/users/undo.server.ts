import { z } from "zod";
import { can } from "../access/check";
import type { PermissionKey } from "../access/permissions";
import { roleGrants } from "../access/role-cache.server";
import type { AuditedActor } from "../audit/actor";
import type { AuditOrigin } from "../audit/audit.server";
import { consumeToken, inspectToken, issueToken } from "../auth/tokens.server";
import { db } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import { TEAM_ROLES } from "../teams/team-roles";
import { rejoinTeam } from "../teams/teams.server";
import { BULK_INLINE_MAX } from "./bulk.server";
import { restoreRoles, setUserStatus } from "./users.server";

// The Undo a toast offers after a reversible act (docs/decisions/038-undo.md). The browser holds
// only an opaque token: what to undo is stored here (a user_token row of kind "undo", its hash
// only), bound to the person who acted, spent at its first use and gone after two minutes. The
// inverse runs under the rules of the act itself, as that person is now, and only on what is still
// as the act left it.

const id = z.string().uuid();
const ids = z.array(id).min(1).max(BULK_INLINE_MAX);
const actSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user.disable"), userIds: ids }),
  z.object({ kind: z.literal("user.role_removal"), userIds: ids, roleIds: z.array(id).min(1).max(50) }),
  z.object({
    kind: z.literal("team.member.remove"),
    teamId: id,
    userId: id,
    teamRole: z.enum(TEAM_ROLES),
  }),
]);
export type UndoableAct = z.infer<typeof actSchema>;

/** What the inverse needs: the permission of the act itself. */
const NEEDS: Record<UndoableAct["kind"], PermissionKey> = {
  "user.disable": "user.update",
  "user.role_removal": "user.update",
  "team.member.remove": "team.write",
};

/** The token a toast's Undo carries, for an act `actor` just did. */
export function offerUndo(actor: { id: string }, act: UndoableAct): Promise<string> {
  return issueToken({ kind: "undo", userId: actor.id, data: actSchema.parse(act) });
}

export type UndoRefusal = "invalid" | "not_yours" | "used" | "expired" | "not_allowed" | "changed";
export type UndoOutcome =
  | { ok: true; kind: UndoableAct["kind"]; restored: number; skipped: number }
  | { ok: false; reason: UndoRefusal };

/**
 * Applies the inverse of the act a token names. Refused with no change: a token that is unknown
 * (forged), someone else's, spent or expired; an actor who lost the act's permission; and, when
 * nothing is as the act left it any more (re-enabled, deleted, back in the team), "changed". A rule
 * the act itself obeys (a super admin, a directory's account) refuses by throwing, as on the page.
 */
export async function undoAct(actor: AuditedActor, raw: unknown, origin: AuditOrigin): Promise<UndoOutcome> {
  const found = await inspectToken(["undo"], raw);
  if (!found.ok) return { ok: false, reason: found.reason };
  // Someone else's token is refused before it is spent, so its owner can still use it.
  if (found.token.userId !== actor.id) return { ok: false, reason: "not_yours" };
  const act = actSchema.safeParse(found.token.data);
  if (!act.success) return { ok: false, reason: "invalid" };
  if (!can(actor, NEEDS[act.data.kind])) return { ok: false, reason: "not_allowed" };
  const spent = await consumeToken(["undo"], raw);
  if (!spent.ok) return { ok: false, reason: spent.reason };
  const { restored, skipped } = await apply(actor, act.data, origin);
  if (restored === 0) return { ok: false, reason: "changed" };
  return { ok: true, kind: act.data.kind, restored, skipped };
}

async function apply(actor: AuditedActor, act: UndoableAct, origin: AuditOrigin) {
  if (act.kind === "team.member.remove") {
    const back = await rejoinTeam(actor, act, origin);
    return { restored: back ? 1 : 0, skipped: back ? 0 : 1 };
  }
  if (act.kind === "user.role_removal") {
    const grants = await roleGrants();
    // A role deleted meanwhile cannot come back: the state is not the act's any more.
    if (act.roleIds.some((r) => !grants.has(r))) return { restored: 0, skipped: act.userIds.length };
    return each(act.userIds, (userId) => restoreRoles(actor, { id: userId, roleIds: act.roleIds }, origin));
  }
  return each(act.userIds, async (userId) => {
    const user = await db().selectFrom("user").select("status").where("id", "=", userId).executeTakeFirst();
    if (user?.status !== "disabled") return false;
    await setUserStatus(actor, { id: userId, status: "active", undo: true }, origin);
    return true;
  });
}

/**
 * One person at a time, each with its own audit row: someone changed or deleted meanwhile is
 * skipped. A rule refusing one of several skips them too; refusing all, it is the answer.
 */
async function each(userIds: string[], restore: (userId: string) => Promise<boolean>) {
  let restored = 0;
  let refusal: RuleViolation | null = null;
  for (const userId of userIds) {
    try {
      if (await restore(userId)) restored++;
    } catch (error) {
      if (error instanceof NotFound) continue;
      if (!(error instanceof RuleViolation)) throw error;
      refusal ??= error;
    }
  }
  if (restored === 0 && refusal) throw refusal;
  return { restored, skipped: userIds.length - restored };
}

import { z } from "zod";
import { can } from "../access/check";
import type { PermissionKey } from "../access/permissions";
import { inReach, type Subject } from "../access/reach.server";
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

// The Undo a toast offers (decision 038): the browser holds only an opaque, single-use token, and
// the inverse runs under the act's own rules, only on what is still as the act left it.

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

const NEEDS: Record<UndoableAct["kind"], PermissionKey> = {
  "user.disable": "user.update",
  "user.role_removal": "user.update",
  "team.member.remove": "team.write",
};

export function offerUndo(actor: { id: string }, act: UndoableAct): Promise<string> {
  return issueToken({ kind: "undo", userId: actor.id, data: actSchema.parse(act) });
}

export type UndoRefusal = "invalid" | "not_yours" | "used" | "expired" | "not_allowed" | "changed";
export type UndoOutcome =
  | { ok: true; kind: UndoableAct["kind"]; restored: number; skipped: number }
  | { ok: false; reason: UndoRefusal };

/** A rule the act itself obeys refuses by throwing, as on the page. */
export async function undoAct(
  actor: AuditedActor & Subject,
  raw: unknown,
  origin: AuditOrigin,
): Promise<UndoOutcome> {
  const found = await inspectToken(["undo"], raw);
  if (!found.ok) return { ok: false, reason: found.reason };
  // Someone else's token is refused before it is spent, so its owner can still use it.
  if (found.token.userId !== actor.id) return { ok: false, reason: "not_yours" };
  const act = actSchema.safeParse(found.token.data);
  if (!act.success) return { ok: false, reason: "invalid" };
  if (!(await mayUndo(actor, act.data))) return { ok: false, reason: "not_allowed" };
  const spent = await consumeToken(["undo"], raw);
  if (!spent.ok) return { ok: false, reason: spent.reason };
  const { restored, skipped } = await apply(actor, act.data, origin);
  if (restored === 0) return { ok: false, reason: "changed" };
  return { ok: true, kind: act.data.kind, restored, skipped };
}

/** As the act itself: over every person it touched, within a team where that is where it is held. */
async function mayUndo(actor: AuditedActor & Subject, act: UndoableAct): Promise<boolean> {
  const need = NEEDS[act.kind];
  if (act.kind === "team.member.remove") return can(actor, need);
  const reached = await inReach(actor, need, act.userIds);
  return act.userIds.every((id) => reached.has(id));
}

async function apply(actor: AuditedActor, act: UndoableAct, origin: AuditOrigin) {
  if (act.kind === "team.member.remove") {
    const back = await rejoinTeam(actor, act, origin);
    return { restored: back ? 1 : 0, skipped: back ? 0 : 1 };
  }
  if (act.kind === "user.role_removal") {
    const grants = await roleGrants();
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

/** Someone changed or deleted meanwhile is skipped. */
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

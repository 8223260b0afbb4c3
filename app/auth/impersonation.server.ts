import { type AuditOrigin, audit } from "../audit/audit.server";
import { db } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import {
  impersonationEnd,
  loadActiveUser,
  setImpersonation,
  viewChanged,
  whyNotViewable,
} from "./impersonation-state.server";
import type { SessionUser } from "./session.server";

// Starting and stopping "View as" (decision 021).

export async function startImpersonation(actor: SessionUser, input: { userId: string }, origin: AuditOrigin) {
  if (actor.impersonator) throw new RuleViolation("impersonation.stopFirst");
  if (!actor.isSuperAdmin) throw new RuleViolation("impersonation.superAdminOnly");
  if (input.userId === actor.id) throw new RuleViolation("impersonation.notSelf");
  const exists = await db().selectFrom("user").select("id").where("id", "=", input.userId).executeTakeFirst();
  if (!exists) throw new NotFound("users.notFound");
  const target = await loadActiveUser(input.userId);
  const refusal = await whyNotViewable(target);
  if (refusal || !target) throw new RuleViolation(refusal ?? "impersonation.cannotView");
  const until = impersonationEnd();
  await db()
    .transaction()
    .execute(async (trx) => {
      const started = await setImpersonation(
        trx,
        { id: actor.sessionId, userId: actor.id },
        { id: target.id, until },
      );
      if (!started) throw new RuleViolation("impersonation.sessionEnded");
      await audit(
        origin,
        {
          action: "impersonation.start",
          actor,
          target: { type: "user", id: target.id },
          details: { until },
        },
        trx,
      );
    });
  // This session's streams carried the admin's events; they reconnect as the account viewed as.
  await viewChanged(actor.sessionId);
  return { name: target.name, until };
}

/** `user` is the account viewed as; the row names both. */
export async function stopImpersonation(user: SessionUser, origin: AuditOrigin) {
  const impersonator = user.impersonator;
  if (!impersonator) return null;
  const stopped = await db()
    .transaction()
    .execute(async (trx) => {
      const done = await setImpersonation(trx, { id: user.sessionId, userId: impersonator.id }, null);
      if (!done) return false;
      await audit(
        origin,
        {
          action: "impersonation.stop",
          actor: user,
          impersonator: { id: impersonator.id, email: impersonator.email },
          target: { type: "user", id: user.id },
        },
        trx,
      );
      return true;
    });
  await viewChanged(user.sessionId);
  return stopped ? { id: user.id, name: user.name } : null;
}

/** The same rules startImpersonation enforces. */
export async function mayViewAs(actor: SessionUser, userId: string): Promise<boolean> {
  if (actor.impersonator || !actor.isSuperAdmin || userId === actor.id) return false;
  return !(await whyNotViewable(await loadActiveUser(userId)));
}

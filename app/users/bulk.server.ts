import type { AuditOrigin } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { NotFound, RuleViolation } from "../domain-errors";
import type { Message } from "../i18n/message";
import { deleteUser, setUserStatus } from "./users.server";

export type BulkResult = { done: number; refused: Message[] };

/**
 * Applies one action to each selected user; a rule that refuses one row does not stop the others,
 * and a row deleted meanwhile is skipped. Each user's change commits with its own audit row.
 */
export async function bulkUsers(
  actor: SessionUser,
  input: { ids: string[]; action: "disable" | "delete" },
  origin: AuditOrigin,
): Promise<BulkResult> {
  const result: BulkResult = { done: 0, refused: [] };
  for (const id of input.ids) {
    try {
      if (input.action === "delete") await deleteUser(actor, { id }, origin);
      else await setUserStatus(actor, { id, status: "disabled" }, origin);
      result.done++;
    } catch (error) {
      if (error instanceof NotFound) continue;
      if (!(error instanceof RuleViolation)) throw error;
      result.refused.push(error.said);
    }
  }
  return result;
}

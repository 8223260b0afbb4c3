import type { AuditOrigin } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { RuleViolation } from "../domain-errors";
import { deleteUser, setUserStatus } from "./users.server";

export type BulkResult = { done: number; refused: string[] };

/** Applies one action to each selected user; a rule that refuses one row does not stop the others. */
export async function bulkUsers(
  actor: SessionUser,
  ids: string[],
  action: "disable" | "delete",
  origin: AuditOrigin,
): Promise<BulkResult> {
  const result: BulkResult = { done: 0, refused: [] };
  for (const id of ids) {
    try {
      const ok =
        action === "delete"
          ? await deleteUser(actor, id, origin)
          : await setUserStatus(actor, id, "disabled", origin);
      if (ok) result.done++;
    } catch (error) {
      if (!(error instanceof RuleViolation)) throw error;
      result.refused.push(error.message);
    }
  }
  return result;
}

import { z } from "zod";
import { hasNoNul } from "../../../db/nul";
import { auditViewerOf } from "../../access/audit-token-names.server";
import { db } from "../../db.server";
import { NotFound, RuleViolation } from "../../domain-errors";
import { english } from "../../i18n/english.server";
import {
  BULK_ACTIONS,
  BULK_MATCHING_MAX,
  bulkReach,
  bulkUsers,
  checkBulk,
  matchingUserIds,
} from "../../users/bulk.server";
import { ROLE_CHANGE_MODES } from "../../users/role-change";
import { defineTask, TaskError } from "../definition.server";

// The users list's "all matching" act when it is more than a request should do
// (app/users/bulk.server.ts): the filters are resolved again when it runs, each person changes
// with their own audit row, and the owner sees how far it is.

const text = z.string().trim().max(200).refine(hasNoNul);

export const usersBulk = defineTask({
  type: "users.bulk",
  permission: "user.read",
  // Held within a team, it acts on that team's people only (checkBulk says which acts may).
  scoped: true,
  // Deletes, disables and grants: never run twice.
  rerunnable: false,
  // Acts with its owner's roles, which a narrower API token must not widen.
  pageOnly: true,
  timeoutMs: 15 * 60_000,
  payload: z
    .object({
      action: z.enum(BULK_ACTIONS),
      roleId: z.string().uuid().optional(),
      teamId: z.string().uuid().optional(),
      mode: z.enum(ROLE_CHANGE_MODES).optional(),
      roleIds: z.array(z.string().uuid()).max(50).optional(),
      filter: z.object({
        q: text.default(""),
        // Several roles, joined by commas (app/users/list.server.ts).
        role: z.string().trim().max(500).refine(hasNoNul).default(""),
        status: z.enum(["", "active", "disabled"]).default(""),
        verified: z.enum(["", "yes", "no"]).default(""),
        created: z.enum(["", "7d"]).default(""),
      }),
    })
    .strict(),
  // Refused when asked, not only when run: a lead cannot queue acts their grants never allow.
  async authorize({ filter: _, ...input }, userId) {
    // The checks read grants and permissions only; an email is for the audit rows of a run.
    await checkBulk({ ...(await auditViewerOf(userId)), email: "" }, input);
  },
  async run({ filter, ...input }, { userId, signal, progress }) {
    const [viewer, owner] = await Promise.all([
      auditViewerOf(userId),
      db().selectFrom("user").select(["email", "name"]).where("id", "=", userId).executeTakeFirst(),
    ]);
    if (!owner) throw new TaskError(english("users.notFound"));
    // Permissions as they are now: someone who lost the permission since starting changes nobody.
    const actor = { ...viewer, email: owner.email, name: owner.name };
    try {
      await checkBulk(actor, input);
    } catch (error) {
      if (error instanceof RuleViolation || error instanceof NotFound) throw new TaskError(error.message);
      throw error;
    }
    const ids = await matchingUserIds(filter, BULK_MATCHING_MAX, bulkReach(actor, input.action));
    if (!ids) throw new TaskError(english("users.bulk.tooMany", { max: BULK_MATCHING_MAX }));
    const origin = {
      request: new Request("http://internal/users-bulk", { headers: { "User-Agent": "users.bulk" } }),
    };
    const result = await bulkUsers(actor, { ...input, ids }, origin, (done) => {
      signal.throwIfAborted();
      progress(Math.min(0.99, done / ids.length), `${done} of ${ids.length}`);
    });
    return {
      matched: ids.length,
      done: result.done,
      unchanged: result.unchanged,
      refused: result.refused.length,
      reasons: [...new Set(result.refused.map((m) => english(m)))],
      // The same reasons as messages, for the task centre to say in the reader's language.
      reasonMessages: [...new Map(result.refused.map((m) => [JSON.stringify(m), m])).values()],
    };
  },
});

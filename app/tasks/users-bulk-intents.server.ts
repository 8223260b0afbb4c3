import type { TFunction } from "i18next";
import { roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import { refuseWhileImpersonating } from "../auth/guard.server";
import type { ActionArgs } from "../auth/intents.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { RuleViolation } from "../domain-errors";
import { redirectWithToast } from "../http/form.server";
import { getT } from "../i18n/i18n.server";
import { say } from "../i18n/message";
import {
  BULK_INLINE_MAX,
  BULK_MATCHING_MAX,
  BULK_PERMISSION,
  type BulkAction,
  type BulkResult,
  bulkReach,
  bulkUsers,
  checkBulk,
  filterOf,
  matchingUserIds,
  previewRoleChange,
  ROLE_PREVIEW_MAX,
  withoutRoles,
} from "../users/bulk.server";
import { parseUserListQuery } from "../users/list.server";
import type { RoleChangeMode } from "../users/role-change";
import { offerUndo } from "../users/undo.server";
import { bulkRoleSchema, bulkRolesSchema, bulkSchema, bulkTeamSchema } from "../users/user-schemas";
import { createTask } from "./create-task.server";

// The users page's bulk intents (here, above users, because past BULK_INLINE_MAX they start a task), one per act (each with its own permission): the people ticked
// on the page act in the request; "all matching" reads the list's filters from the page's own
// address and, past BULK_INLINE_MAX people, becomes a users.bulk task with progress.

type Args = ActionArgs & { url: URL };
type Chosen = {
  scope: "selected" | "matching";
  ids: string[];
  roleId?: string;
  teamId?: string;
  mode?: RoleChangeMode;
  roleIds?: string[];
};

function back(args: Args, kind: "success" | "error" | "info", message: string, undo?: string) {
  return redirectWithToast(args.url.pathname + args.url.search, { kind, message, undo });
}

/** Disabling and taking a role away can be undone from the toast (app/users/undo.server.ts). */
function undoOf(actor: SessionUser, action: BulkAction, input: Chosen, changed: string[]) {
  if (changed.length === 0) return undefined;
  if (action === "disable") return offerUndo(actor, { kind: "user.disable", userIds: changed });
  if (action === "remove-role" && input.roleId)
    return offerUndo(actor, { kind: "user.role_removal", userIds: changed, roleIds: [input.roleId] });
  // One role taken from each: giving it back is exact (with several, some held only one of them).
  if (action === "change-roles" && input.mode === "remove" && input.roleIds?.length === 1)
    return offerUndo(actor, { kind: "user.role_removal", userIds: changed, roleIds: input.roleIds });
  return undefined;
}

async function doneText(t: TFunction, action: BulkAction, input: Chosen, result: BulkResult) {
  const count = result.done;
  const what = {
    enable: () => t("users:bulk.enabled", { count }),
    disable: () => t("users:bulk.disabled", { count }),
    delete: () => t("users:bulk.deleted", { count }),
    "add-role": async () => t("users:bulk.roleAdded", { count, role: await roleName(t, input.roleId) }),
    "remove-role": async () => t("users:bulk.roleRemoved", { count, role: await roleName(t, input.roleId) }),
    "change-roles": () => t("users:bulk.rolesChanged", { count }),
    "add-to-team": async () => t("users:bulk.teamAdded", { count, team: await teamName(input.teamId) }),
  }[action];
  // "Gave Admin to 0 users." says nothing when the reason is what follows.
  const parts = count > 0 || (!result.unchanged && !result.refused.length) ? [await what()] : [];
  if (action === "change-roles") {
    const left = await withoutRoles(result.changed);
    if (left) parts.push(t("users:bulk.leftWithoutRoles", { count: left }));
  }
  if (result.unchanged) parts.push(t("users:bulk.unchanged", { count: result.unchanged }));
  if (result.refused.length)
    parts.push(
      t("users:bulk.refused", {
        count: result.refused.length,
        reasons: [...new Set(result.refused.map((m) => say(t, m)))].join(" "),
      }),
    );
  return parts.join(" ");
}

async function roleName(t: TFunction, id: string | undefined) {
  const role = id ? (await roleGrants()).get(id) : undefined;
  return role ? roleLabel(t, role) : "";
}

async function teamName(id: string | undefined) {
  if (!id) return "";
  const team = await db().selectFrom("team").select("name").where("id", "=", id).executeTakeFirst();
  return team?.name ?? "";
}

async function run(args: Args, actor: SessionUser, action: BulkAction, input: Chosen) {
  const t = getT(args.context);
  const act = {
    action,
    roleId: input.roleId,
    teamId: input.teamId,
    mode: input.mode,
    roleIds: input.roleIds,
  };
  await checkBulk(actor, act);
  const filter = filterOf(parseUserListQuery(args.url));
  const ids =
    input.scope === "matching"
      ? await matchingUserIds(filter, BULK_MATCHING_MAX, bulkReach(actor, action))
      : input.ids;
  if (!ids) throw new RuleViolation("users.bulk.tooMany", { max: BULK_MATCHING_MAX });
  if (ids.length > BULK_INLINE_MAX) {
    // The task acts as the person: the audit rows would lose the super admin viewing as them.
    refuseWhileImpersonating(args, actor);
    const outcome = await createTask(actor, { type: "users.bulk", payload: { ...act, filter } });
    if (!outcome.ok) {
      const task = t("tasks:type.usersBulk");
      return back(
        args,
        "error",
        outcome.status === "too_many_tasks"
          ? t("tasks:start.tooMany", { task, count: outcome.limit })
          : t("tasks:start.failed", {
              task,
              why:
                outcome.status === 403 ? outcome.permission : outcome.issues.map((i) => i.message).join(" "),
            }),
      );
    }
    return back(args, "info", t("users:bulk.started", { count: ids.length }));
  }
  const result = await bulkUsers(actor, { ...act, ids }, args);
  return back(
    args,
    result.refused.length ? "error" : "success",
    await doneText(t, action, input, result),
    await undoOf(actor, action, input, result.changed),
  );
}

/** The bulk bar's intents, to spread into the users page's handleIntents table. */
export function bulkIntents(args: Args) {
  // Held within a team is enough: the act then touches that team's people only (bulk.server.ts).
  const plain = (action: BulkAction) => ({
    permission: BULK_PERMISSION[action],
    somewhere: true,
    schema: bulkSchema,
    run: ({ actor, input }: { actor: SessionUser; input: Chosen }) => run(args, actor, action, input),
  });
  return {
    "bulk-enable": plain("enable"),
    "bulk-disable": plain("disable"),
    "bulk-delete": plain("delete"),
    "bulk-add-role": {
      permission: BULK_PERMISSION["add-role"],
      schema: bulkRoleSchema,
      run: ({ actor, input }: { actor: SessionUser; input: Chosen }) => run(args, actor, "add-role", input),
    },
    "bulk-remove-role": {
      permission: BULK_PERMISSION["remove-role"],
      schema: bulkRoleSchema,
      run: ({ actor, input }: { actor: SessionUser; input: Chosen }) =>
        run(args, actor, "remove-role", input),
    },
    "bulk-change-roles": {
      permission: BULK_PERMISSION["change-roles"],
      schema: bulkRolesSchema,
      run: ({ actor, input }: { actor: SessionUser; input: Chosen }) =>
        run(args, actor, "change-roles", input),
    },
    // What "Change roles" would give and take, before it is confirmed (change-roles-fields.tsx).
    "preview-bulk-roles": {
      permission: BULK_PERMISSION["change-roles"],
      schema: bulkRolesSchema,
      run: async ({ actor, input }: { actor: SessionUser; input: Chosen }) => {
        await checkBulk(actor, { action: "change-roles", mode: input.mode, roleIds: input.roleIds });
        const filter = filterOf(parseUserListQuery(args.url));
        const ids =
          input.scope === "matching"
            ? await matchingUserIds(filter, ROLE_PREVIEW_MAX, bulkReach(actor, "change-roles"))
            : input.ids;
        return {
          ok: true as const,
          intent: "preview-bulk-roles" as const,
          errors: {} as Record<string, string>,
          formError: null,
          preview: ids
            ? await previewRoleChange(actor, ids, { mode: input.mode!, roleIds: input.roleIds ?? [] })
            : null,
          tooMany: ids ? undefined : ROLE_PREVIEW_MAX,
        };
      },
    },
    "bulk-add-to-team": {
      permission: BULK_PERMISSION["add-to-team"],
      schema: bulkTeamSchema,
      run: ({ actor, input }: { actor: SessionUser; input: Chosen }) =>
        run(args, actor, "add-to-team", input),
    },
  };
}

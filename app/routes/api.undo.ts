import { data } from "react-router";
import { handleAction } from "../auth/intents.server";
import { refused } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { type UndoOutcome, type UndoRefusal, undoAct } from "../users/undo.server";
import { undoRequest as schema } from "../users/user-schemas";
import type { Route } from "./+types/api.undo";

// A toast's Undo (app/components/toaster.tsx): the form carries only the token the act's answer
// issued (app/users/undo.server.ts); the server knows what it undoes. Answers the toaster's fetcher.

/** A forged token is bad input, someone else's is forbidden, a spent or expired one is gone. */
const STATUS: Record<UndoRefusal, number> = {
  invalid: 400,
  not_yours: 403,
  not_allowed: 403,
  used: 410,
  expired: 410,
  changed: 409,
};
const REFUSAL = {
  invalid: "undo.invalid",
  not_yours: "undo.notYours",
  not_allowed: "undo.notAllowed",
  used: "undo.used",
  expired: "undo.expired",
  changed: "undo.changed",
} as const;

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const t = getT(args.context);
  return handleAction(
    args,
    "undo",
    {
      schema,
      run: async ({ actor, input }) => {
        const outcome = await undoAct(actor, input.token, args);
        if (!outcome.ok) return refused(t, REFUSAL[outcome.reason], STATUS[outcome.reason], "undo");
        return data({ ok: true as const, intent: "undo", message: doneText(t, outcome) });
      },
    },
    { permission: "dashboard.access" },
  );
}

function doneText(t: ReturnType<typeof getT>, outcome: Extract<UndoOutcome, { ok: true }>) {
  const { restored: count, skipped } = outcome;
  const done = {
    "user.disable": t("users:undo.enabled", { count }),
    "user.role_removal": t("users:undo.rolesBack", { count }),
    "team.member.remove": t("users:undo.memberBack"),
  }[outcome.kind];
  return skipped ? `${done} ${t("users:undo.skipped", { count: skipped })}` : done;
}

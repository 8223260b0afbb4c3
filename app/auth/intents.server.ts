import type { RouterContextProvider } from "react-router";
import type { z } from "zod";
import type { PermissionKey } from "../access/permissions";
import { actionError, type invalid, invalidSubmission, parseSubmission, refused } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { getT } from "../i18n/i18n.server";
import { requirePermission, requireUser } from "./guard.server";
import type { SessionUser } from "./session.server";

// The one way a page action runs: read the form, find its intent, check the permission, validate,
// call the domain, and map whatever the domain throws through actionError. Routes only declare the
// table, so no action grows its own if-chain, try/catch or status codes.

export type ActionArgs = {
  request: Request;
  params?: Record<string, string | undefined>;
  context: Readonly<RouterContextProvider>;
};

type Schema = z.ZodType;

type IntentContext<A, I> = {
  actor: SessionUser;
  /** The schema's output, or the raw form values when the intent has no schema. */
  input: I;
  form: FormData;
  args: A;
  intent: string;
};

export type IntentHandler<A, S, R = unknown> = {
  /** Checked (after the route's own permission) before the form is validated. */
  permission?: PermissionKey;
  schema?: S;
  /** The `intent` the failure answers carry, when the page shows them elsewhere (a menu row, say). */
  answerAs?: (form: FormData) => string;
  run(ctx: IntentContext<A, S extends Schema ? z.output<S> : Record<string, unknown>>): R | Promise<R>;
};

type Options = {
  /** The route's own permission, checked before the body is read (as loaders check it). */
  permission?: PermissionKey;
};

/** What the handlers' `run` return (a redirect thrown is `never`, so it adds nothing). */
type Answer<T> = {
  [K in keyof T]: T[K] extends { run(...a: never[]): infer R } ? Awaited<R> : never;
}[keyof T];
type Failure =
  | ReturnType<typeof actionError>
  | ReturnType<typeof refused>
  | ReturnType<typeof invalid>
  | ReturnType<typeof invalidSubmission>;

/**
 * Runs the handler the form's `intent` names. An unknown intent is 400 "Unknown action."; a
 * missing permission 403 before anything is validated; invalid fields 400 with the field errors;
 * a domain failure its status from actionError. Whatever `run` returns (or throws as a redirect)
 * is the answer.
 *
 *     export const action = (args: Route.ActionArgs) =>
 *       handleIntents(args, {
 *         rename: {
 *           permission: "team.write",
 *           schema: teamSchema,
 *           run: async ({ actor, input, args }) => { ... },
 *         },
 *       });
 */
// S (each entry's schema) is inferred through the mapped type, which types each `run`'s input;
// T (the table as written) gives the answers' type.
export async function handleIntents<A extends ActionArgs, S, T>(
  args: A,
  table: { [K in keyof S]: IntentHandler<A, S[K]> } & T,
  options: Options = {},
): Promise<Answer<T> | Failure> {
  const routeActor = await guard(args, options.permission);
  const form = await readForm(args.request);
  const intent = String(form.get("intent") ?? "");
  const handler = handlerFor<A>(table, intent);
  if (!handler) return refused(getT(args.context), "form.unknownAction", 400);
  return (await runHandler(args, form, intent, handler, routeActor)) as Answer<T> | Failure;
}

/**
 * The table's own entry the form names, never an inherited one (`constructor`, `__proto__`). Each
 * entry was typed against its schema where the route wrote the table; a name from the form can
 * only be looked up, so here they are handlers of some schema.
 */
function handlerFor<A>(table: object, intent: string): IntentHandler<A, Schema> | undefined {
  return Object.entries(table).find(([name]) => name === intent)?.[1];
}

/**
 * A page with one form and no `intent` field: the same pipeline with the intent fixed (`intent`
 * is what the failure answers carry).
 */
export async function handleAction<A extends ActionArgs, S, R>(
  args: A,
  intent: string,
  handler: IntentHandler<A, S, R>,
  options: Options = {},
): Promise<Awaited<R> | Failure> {
  const routeActor = await guard(args, options.permission);
  const form = await readForm(args.request);
  return (await runHandler(args, form, intent, handler as IntentHandler<A, Schema>, routeActor)) as
    | Awaited<R>
    | Failure;
}

async function guard(args: ActionArgs, permission: PermissionKey | undefined) {
  return permission ? requirePermission(args, permission) : undefined;
}

async function runHandler<A extends ActionArgs>(
  args: A,
  form: FormData,
  intent: string,
  handler: IntentHandler<A, Schema>,
  routeActor: SessionUser | undefined,
) {
  const answerAs = handler.answerAs?.(form) ?? intent;
  // Refusals answer the page in its own language.
  const t = getT(args.context);
  const actor = handler.permission
    ? await requirePermission(args, handler.permission)
    : (routeActor ?? (await requireUser(args)));
  // The browser validates with the same schema through conform; its reply restores the form.
  let input: unknown = formObject(form);
  if (handler.schema) {
    const submission = parseSubmission(form, handler.schema, t);
    if (submission.status !== "success") return invalidSubmission(submission, answerAs);
    input = submission.value;
  }
  try {
    return await handler.run({ actor, input, form, args, intent });
  } catch (error) {
    return actionError(error, t, answerAs);
  }
}

/** The form as a plain object, one string per field: the input of a handler without a schema. */
function formObject(form: FormData): Record<string, unknown> {
  // Field names are the client's: Object.fromEntries defines each as an own property, so
  // `__proto__` is a field like any other, and the object stays plain (answers serialise it).
  const fields = [...new Set(form.keys())].flatMap((key) => {
    const value = form.get(key);
    return key !== "intent" && typeof value === "string" ? [[key, value] as const] : [];
  });
  return Object.fromEntries(fields);
}

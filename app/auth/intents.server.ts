import type { RouterContextProvider } from "react-router";
import type { z } from "zod";
import type { PermissionKey } from "../access/permissions";
import { actionError, type invalid, invalidSubmission, parseSubmission, refused } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { getT } from "../i18n/i18n.server";
import { requireOnUser, requirePermission, requireSomewhere, requireUser } from "./guard.server";
import type { SessionUser } from "./session.server";

// The one way a page action runs, so no action grows its own if-chain, try/catch or status codes.

export type ActionArgs = {
  request: Request;
  params?: Record<string, string | undefined>;
  context: Readonly<RouterContextProvider>;
};

type Schema = z.ZodType;

type IntentContext<A, I> = {
  actor: SessionUser;
  input: I;
  form: FormData;
  args: A;
  intent: string;
};

export type IntentHandler<A, S, R = unknown> = {
  permission?: PermissionKey;
  /** `permission` held within some team is enough: the handler keeps to the actor's reach itself. */
  somewhere?: boolean;
  schema?: S;
  /** The `intent` failure answers carry, when the page shows them elsewhere. */
  answerAs?: (form: FormData) => string;
  run(ctx: IntentContext<A, S extends Schema ? z.output<S> : Record<string, unknown>>): R | Promise<R>;
};

type Options = {
  /** Checked before the body is read, as loaders check it. */
  permission?: PermissionKey;
  /** The person the page is about: each permission is then checked over them (in scope, else 404). */
  onUser?: string;
  /** `permission` held within some team is enough (a list that shows only what is in reach). */
  somewhere?: boolean;
};

type Answer<T> = {
  [K in keyof T]: T[K] extends { run(...a: never[]): infer R } ? Awaited<R> : never;
}[keyof T];
type Failure =
  | ReturnType<typeof actionError>
  | ReturnType<typeof refused>
  | ReturnType<typeof invalid>
  | ReturnType<typeof invalidSubmission>;

/**
 * Runs the handler the form's `intent` names: unknown 400, missing permission 403 before
 * validation, domain failures their status from actionError.
 */
export async function handleIntents<A extends ActionArgs, S, T>(
  args: A,
  table: { [K in keyof S]: IntentHandler<A, S[K]> } & T,
  options: Options = {},
): Promise<Answer<T> | Failure> {
  const routeActor = await guard(args, options);
  const form = await readForm(args.request);
  const intent = String(form.get("intent") ?? "");
  const handler = handlerFor<A>(table, intent);
  if (!handler) return refused(getT(args.context), "form.unknownAction", 400);
  return (await runHandler(args, form, intent, handler, routeActor, options)) as Answer<T> | Failure;
}

/** Never an inherited entry (`constructor`, `__proto__`). */
function handlerFor<A>(table: object, intent: string): IntentHandler<A, Schema> | undefined {
  return Object.entries(table).find(([name]) => name === intent)?.[1];
}

export async function handleAction<A extends ActionArgs, S, R>(
  args: A,
  intent: string,
  handler: IntentHandler<A, S, R>,
  options: Options = {},
): Promise<Awaited<R> | Failure> {
  const routeActor = await guard(args, options);
  const form = await readForm(args.request);
  return (await runHandler(args, form, intent, handler as IntentHandler<A, Schema>, routeActor, options)) as
    | Awaited<R>
    | Failure;
}

async function guard(
  args: ActionArgs,
  options: Options,
  permission = options.permission,
  somewhere = options.somewhere,
) {
  if (!permission) return undefined;
  if (options.onUser) return requireOnUser(args, permission, options.onUser);
  return somewhere ? requireSomewhere(args, permission) : requirePermission(args, permission);
}

async function runHandler<A extends ActionArgs>(
  args: A,
  form: FormData,
  intent: string,
  handler: IntentHandler<A, Schema>,
  routeActor: SessionUser | undefined,
  options: Options,
) {
  const answerAs = handler.answerAs?.(form) ?? intent;
  const t = getT(args.context);
  const actor = handler.permission
    ? // A handler's own permission is over everyone unless the handler says otherwise.
      (await guard(args, options, handler.permission, handler.somewhere ?? false))!
    : (routeActor ?? (await requireUser(args)));
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

function formObject(form: FormData): Record<string, unknown> {
  // Object.fromEntries defines own properties, so a `__proto__` field stays a field.
  const fields = [...new Set(form.keys())].flatMap((key) => {
    const value = form.get(key);
    return key !== "intent" && typeof value === "string" ? [[key, value] as const] : [];
  });
  return Object.fromEntries(fields);
}

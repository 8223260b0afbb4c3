import type { TFunction } from "i18next";
import type english from "../locales/en/messages.json";

/**
 * Messages are raised as keys with values, never as sentences; whoever shows one says it in the
 * reader's language (decision 024).
 */

export type MessageKey = Leaves<typeof english>;

type Leaves<T, Prefix extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

export type MessageValues = Record<string, string | number>;

export type Message = { key: MessageKey; values?: MessageValues };

export function message(key: MessageKey, values?: MessageValues): Message {
  return values ? { key, values } : { key };
}

/** Values go in as `replace`, so a value is never read as an option of t or as a template. */
export function say(t: TFunction, message: Message | MessageKey): string {
  const { key, values } = typeof message === "string" ? { key: message, values: undefined } : message;
  return t(`messages:${key}`, { replace: values ?? {} });
}

/** zod's own message, for a shape no field has, is a sentence rather than a key. */
const KEY_SHAPE = /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)+$/;

export type Issue = { message: string; minimum?: unknown; maximum?: unknown; params?: unknown };

export function issueValues(issue: Issue): MessageValues {
  const values: MessageValues = {};
  for (const name of ["minimum", "maximum"] as const) {
    const value = issue[name];
    if (typeof value === "number" || typeof value === "bigint") values[name] = Number(value);
  }
  if (issue.params && typeof issue.params === "object")
    for (const [name, value] of Object.entries(issue.params))
      if (typeof value === "string" || typeof value === "number") values[name] = value;
  return values;
}

/** zod's own words for input no form sends are shown as written. */
export function sayIssue(t: TFunction, issue: Issue): string {
  if (!KEY_SHAPE.test(issue.message)) return issue.message;
  return say(t, { key: issue.message as MessageKey, values: issueValues(issue) });
}

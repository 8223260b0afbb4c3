import type { TFunction } from "i18next";
import type english from "../locales/en/messages.json";

/**
 * A message for a person (a refusal, a validation error) is raised as a key of the "messages"
 * namespace with its values, never as a sentence: `{ key: "teams.nameTaken", values: { name } }`.
 * Whoever shows it says it with `t` in the reader's language: a page, an action answering a page
 * (the request's language), the API and the logs in English (app/i18n/english.server.ts).
 * docs/decisions/024-languages.md.
 */

/** "teams.nameTaken", … : every leaf of app/locales/en/messages.json. */
export type MessageKey = Leaves<typeof english>;

type Leaves<T, Prefix extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

export type MessageValues = Record<string, string | number>;

export type Message = { key: MessageKey; values?: MessageValues };

export function message(key: MessageKey, values?: MessageValues): Message {
  return values ? { key, values } : { key };
}

/**
 * The message (or a bare key) in t's language. Values go in as `replace`, so a value is never read
 * as an option of t (`lng`, `ns`, `count`) and, with the options of app/i18n/options.ts, never as a
 * template.
 */
export function say(t: TFunction, message: Message | MessageKey): string {
  const { key, values } = typeof message === "string" ? { key: message, values: undefined } : message;
  return t(`messages:${key}`, { replace: values ?? {} });
}

/** A zod schema's message is a key too ("validation.email"); zod's own, for a shape no field has, is a sentence. */
const KEY_SHAPE = /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)+$/;

/** What a zod issue carries for its message; `params` comes from a refinement (`ctx.addIssue`). */
export type Issue = { message: string; minimum?: unknown; maximum?: unknown; params?: unknown };

/** An issue's values: the limit of a length check (`{{minimum}}`, `{{maximum}}`) and a refinement's params. */
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

/**
 * A zod issue said with t, with its own values. zod's own words for input no form sends (a
 * malformed request) are not ours and are shown as written.
 */
export function sayIssue(t: TFunction, issue: Issue): string {
  if (!KEY_SHAPE.test(issue.message)) return issue.message;
  return say(t, { key: issue.message as MessageKey, values: issueValues(issue) });
}

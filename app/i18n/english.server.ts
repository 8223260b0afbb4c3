import { createInstance, type TFunction } from "i18next";
import { type Issue, type Message, type MessageKey, type MessageValues, say, sayIssue } from "./message";
import { FALLBACK_LANGUAGE, i18nOptions } from "./options";
import { resources } from "./resources.server";

// The English of the messages namespace, for what answers in English whatever the reader's
// language: the API (docs/http-contract.md), logs, audit details and an Error's own message. Its own
// small instance, so a domain error can say itself without the request-bound app/i18n/i18n.server.ts.

let instance: TFunction | undefined;

function englishT(): TFunction {
  if (!instance) {
    const messages = resources()[FALLBACK_LANGUAGE]?.messages ?? {};
    const i18n = createInstance(i18nOptions(FALLBACK_LANGUAGE, { [FALLBACK_LANGUAGE]: { messages } }));
    i18n.init();
    instance = i18n.t;
  }
  return instance;
}

/** The message in English: `english(message("teams.nameTaken", { name }))`. */
export function english(m: Message): string;
export function english(key: MessageKey, values?: MessageValues): string;
export function english(m: Message | MessageKey, values?: MessageValues): string {
  return say(englishT(), typeof m === "string" ? { key: m, values } : m);
}

/** A zod issue in English (its message a key of ours, or zod's own words). */
export function englishIssue(issue: Issue): string {
  return sayIssue(englishT(), issue);
}

/** English's t, for code that says messages outside a request (a test, a script). */
export function englishTranslator(): TFunction {
  return englishT();
}

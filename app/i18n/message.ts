import type { TFunction } from "i18next";
import english from "../locales/en/messages.json";

/**
 * Validation and refusal messages are written in English where they are raised (zod schemas shared
 * by browser and server, domain errors), and the API answers them in English (the HTTP contract).
 * A page translates one when it shows it: the English sentence is the key of the "messages"
 * namespace, so it cannot be split at its dots or colons.
 *
 * A message that carries data (`A team named "Ops" already exists.`) is keyed by its pattern,
 * with a placeholder where the data goes (`A team named "{{name}}" already exists.`): the data is
 * taken from the English sentence and put into the translation.
 */
export function translateMessage(t: TFunction, message: string): string {
  const options = { ns: "messages", keySeparator: false, nsSeparator: false } as const;
  if (!Object.hasOwn(english, message)) {
    const found = matchPattern(message);
    if (found) return t(found.key, { ...options, ...found.values, defaultValue: message });
    // Not one of ours (zod's own words for a malformed request, a mail provider's, an HTTP status
    // text): shown as written, never interpolated, so "{{x}}" or "$t(…)" inside it stays text.
    // Our own messages are all in the catalogue: app/i18n/messages-catalogue.test.ts fails otherwise.
    return message;
  }
  return t(message, { ...options, defaultValue: message });
}

type Pattern = { key: string; names: string[]; regex: RegExp };

let patterns: Pattern[] | undefined;

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

function compile(): Pattern[] {
  return (
    Object.keys(english)
      .filter((key) => key.includes("{{"))
      .map((key) => {
        const names: string[] = [];
        const source = key
          .split(PLACEHOLDER)
          .map((part, i) => {
            if (i % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
            names.push(part);
            return "(.+?)";
          })
          .join("");
        return { key, names, regex: new RegExp(`^${source}$`, "s") };
      })
      // The most specific (longest fixed text) first, so "in 1 second." beats "in {{n}} seconds.".
      .sort((a, b) => b.key.replace(PLACEHOLDER, "").length - a.key.replace(PLACEHOLDER, "").length)
  );
}

/** The pattern key an English message with data in it was made from, and that data. */
export function matchPattern(message: string): { key: string; values: Record<string, string> } | null {
  patterns ??= compile();
  for (const pattern of patterns) {
    const match = pattern.regex.exec(message);
    if (match)
      return {
        key: pattern.key,
        values: Object.fromEntries(pattern.names.map((name, i) => [name, match[i + 1] ?? ""])),
      };
  }
  return null;
}

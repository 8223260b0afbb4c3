import type { InitOptions } from "i18next";

// One set of i18next options for the server's instances and the browser's (docs/decisions/024-languages.md).

/** Shown when nothing else matches: the user set no language and the browser asks for none we have. */
export const FALLBACK_LANGUAGE = "en";

/** The namespace a bare key reads; every key in the code names its namespace anyway ("users:list.title"). */
const DEFAULT_NAMESPACE = "common";

/** A locale for Intl per language: "en" alone would format dates the American way. */
const INTL_LOCALE: Record<string, string> = { en: "en-GB", de: "de-DE" };

export function intlLocale(language: string): string {
  return INTL_LOCALE[language] ?? language;
}

export function i18nOptions(lng: string, resources: InitOptions["resources"]): InitOptions {
  return {
    lng,
    resources,
    fallbackLng: FALLBACK_LANGUAGE,
    defaultNS: DEFAULT_NAMESPACE,
    ns: Object.keys(resources?.[lng] ?? resources?.[FALLBACK_LANGUAGE] ?? {}),
    // React escapes what it renders; escaping here too would show "&amp;".
    // A value is data, never a template (a name "{{by}} $t(x)" is shown as written): i18next does not
    // interpolate or nest what a value brought in (`skipOnVariables`), and <Trans>, which escapes its
    // values, parses the tags and then interpolates the text once more, gets values whose braces and
    // dollar signs are entities too, which it turns back into text after that pass (`react.unescape`).
    interpolation: { escapeValue: false, skipOnVariables: true, escape: escapeValue },
    react: { unescape: unescapeValue },
    returnNull: false,
    initAsync: false,
  };
}

// Entities for a value's characters that are markup ("<strong>" in a name is text) or template
// syntax (double braces, dollar-t nesting); <Trans> escapes its values with this and unescapes its
// text nodes with the reverse, so a value comes out exactly as it went in.
const ENTITY: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "{": "&#123;",
  "}": "&#125;",
  $: "&#36;",
};

function escapeValue(value: unknown): string {
  return typeof value === "string" ? value.replace(/[&<>"'{}$]/g, (c) => ENTITY[c]!) : (value as string);
}

// Ours and the ones react-i18next's default unescape knows (translations may write them), in one pass.
const CHARACTER: Record<string, string> = {
  ...Object.fromEntries(Object.entries(ENTITY).map(([c, e]) => [e, c])),
  "&#38;": "&",
  "&#60;": "<",
  "&#62;": ">",
  "&apos;": "'",
  "&#34;": '"',
  "&nbsp;": "\u00A0",
  "&#160;": "\u00A0",
  "&copy;": "©",
  "&#169;": "©",
  "&reg;": "®",
  "&#174;": "®",
  "&hellip;": "…",
  "&#8230;": "…",
  "&#x2F;": "/",
  "&#47;": "/",
};
const ENTITY_PATTERN = new RegExp(Object.keys(CHARACTER).join("|"), "g");

function unescapeValue(text: string): string {
  return text.replace(ENTITY_PATTERN, (e) => CHARACTER[e]!);
}

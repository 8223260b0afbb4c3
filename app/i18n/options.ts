import type { InitOptions } from "i18next";

// One set of i18next options for the server's instances and the browser's (decision 024).

/** The user set no language and the browser asks for none we have. */
export const FALLBACK_LANGUAGE = "en";

/** Every key in the code names its namespace anyway ("users:list.title"). */
const DEFAULT_NAMESPACE = "common";

/** "en" alone would format dates the American way. */
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
    // React escapes what it renders. A value is data, never a template: `skipOnVariables`, and
    // `react.unescape` for <Trans>, which interpolates its text once more after parsing the tags.
    interpolation: { escapeValue: false, skipOnVariables: true, escape: escapeValue },
    react: { unescape: unescapeValue },
    returnNull: false,
    initAsync: false,
  };
}

// So a value comes out of <Trans> exactly as it went in: markup and template syntax become entities.
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

import type { InitOptions } from "i18next";

// One set of i18next options for the server's instances and the browser's (docs/decisions/024-languages.md).

/** Shown when nothing else matches: the user set no language and the browser asks for none we have. */
export const FALLBACK_LANGUAGE = "en";

/** The namespace a bare key reads; every key in the code names its namespace anyway ("users:list.title"). */
export const DEFAULT_NAMESPACE = "common";

/** A locale for Intl per language: "en" alone would format dates the American way. */
export const INTL_LOCALE: Record<string, string> = { en: "en-GB", de: "de-DE" };

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
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  };
}

import type { i18n as I18n, TFunction } from "i18next";
import { useCallback, useContext, useSyncExternalStore } from "react";
import { I18nContext } from "react-i18next";
import { fillTemplate } from "./fill-template";

// The app's `useTranslation`: the provider's instance and a `t` for its current language.
// react-i18next's own hook copies every property of the instance into a fresh wrapper object on
// each mount, which on the server is every component of every request: 17 % of a signed-in
// dashboard's CPU went to that and its per-call option objects (issue 23's profile). Keys name
// their namespace ("users:list.title") and every language's strings load before rendering
// (entry.client.tsx, useSyncLanguage), so neither namespaces nor Suspense are needed here.

const fixed = new WeakMap<I18n, Map<string, TFunction>>();

/**
 * One `t` per instance and language, so its identity changes exactly when the language does. A key
 * asked without options always gives the same text in one language (the strings of a language are
 * complete before it is shown), so that text is kept: most of a page's labels are such keys. A key
 * with plain values is filled from its kept template where it can be (fill-template.ts).
 */
function tOf(i18n: I18n, language: string): TFunction {
  let byLanguage = fixed.get(i18n);
  if (!byLanguage) {
    byLanguage = new Map();
    fixed.set(i18n, byLanguage);
  }
  let t = byLanguage.get(language);
  if (!t) {
    const texts = new Map<string, string>();
    t = ((...args: Parameters<TFunction>) => {
      const key = args[0];
      if (args.length === 2 && typeof key === "string" && typeof args[1] === "object" && args[1] !== null) {
        const filled = fillTemplate(i18n, language, key, args[1] as Record<string, unknown>);
        if (filled !== undefined) return filled;
      }
      if (args.length !== 1 || typeof key !== "string") return i18n.t(...args);
      let text = texts.get(key);
      if (text === undefined) {
        // This `t`'s own language, whatever the instance's is by now (a `t` kept from before a switch).
        text = i18n.t(key, { lng: language });
        texts.set(key, text);
      }
      return text;
    }) as TFunction;
    byLanguage.set(language, t);
  }
  return t;
}

export function useTranslation(): { t: TFunction; i18n: I18n } {
  const { i18n } = useContext(I18nContext);
  const subscribe = useCallback(
    (changed: () => void) => {
      i18n.on("languageChanged", changed);
      return () => i18n.off("languageChanged", changed);
    },
    [i18n],
  );
  const language = useSyncExternalStore(
    subscribe,
    () => i18n.language,
    () => i18n.language,
  );
  return { t: tOf(i18n, language), i18n };
}

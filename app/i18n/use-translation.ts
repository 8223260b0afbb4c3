import type { i18n as I18n, TFunction } from "i18next";
import { useCallback, useContext, useSyncExternalStore } from "react";
import { I18nContext } from "react-i18next";
import { fillTemplate } from "./fill-template";

// react-i18next's own hook copies the instance into a fresh wrapper on each mount, which on the server
// cost 17 % of a dashboard's CPU (decision 041); keys name their namespace and languages load before rendering.

const fixed = new WeakMap<I18n, Map<string, TFunction>>();

/** Its identity changes exactly when the language does; texts of keys without options are kept. */
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
        // This `t`'s own language, whatever the instance's is by now.
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

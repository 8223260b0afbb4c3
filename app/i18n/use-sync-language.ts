import { useEffect } from "react";
import { loadLanguage } from "./load-language";
import { useTranslation } from "./use-translation";

/**
 * Follows the root loader's language after hydration: when a person picks another language in
 * Settings, the next loader answer names it, and its strings load before the switch.
 */
export function useSyncLanguage(language: string | undefined) {
  const { i18n } = useTranslation();
  useEffect(() => {
    if (!language || language === i18n.language) return;
    let cancelled = false;
    void (async () => {
      if (!i18n.hasResourceBundle(language, "common")) {
        const bundle = await loadLanguage(language);
        for (const [ns, strings] of Object.entries(bundle))
          i18n.addResourceBundle(language, ns, strings, true, true);
      }
      if (!cancelled) await i18n.changeLanguage(language);
      document.documentElement.lang = language;
    })();
    return () => {
      cancelled = true;
    };
  }, [language, i18n]);
}

import { InvalidInput } from "../domain-errors";
import { supportedLanguages } from "../i18n/resources.server";
import type { LabelTranslations } from "./label-translations";

/** A label for a language the app does not speak would never be shown: refused, on `field`. */
export function assertKnownLanguages(translations: LabelTranslations, field: string) {
  const known = supportedLanguages();
  for (const language of Object.keys(translations))
    if (!known.includes(language)) throw new InvalidInput("access.labelLanguage", `${field}.${language}`);
}

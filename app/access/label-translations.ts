import type { TFunction } from "i18next";
import { z } from "zod";

// Labels an admin writes for other languages, kept as JSON by language code (decision 040).

export type LabelTranslations = Record<string, string>;

export type MaybeTranslated<T extends { translations: LabelTranslations }> = Omit<T, "translations"> & {
  translations?: LabelTranslations;
};

const LANGUAGE_CODE = /^[a-z]{2,3}$/;

/** PostgreSQL text cannot hold NUL at all. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A language left empty has no label of its own. */
export function labelTranslationsSchema(max: number) {
  return z
    .record(
      z.string().regex(LANGUAGE_CODE, "access.labelLanguage"),
      z
        .string()
        .trim()
        .max(max, "validation.maxLength")
        .refine((text) => !CONTROL.test(text), "validation.oneLine")
        .optional(),
      { message: "access.labelLanguage" },
    )
    .optional()
    .transform(
      (all): LabelTranslations =>
        Object.fromEntries(
          Object.entries(all ?? {})
            .filter((entry): entry is [string, string] => Boolean(entry[1]))
            .sort(([a], [b]) => a.localeCompare(b)),
        ),
    );
}

const stored = labelTranslationsSchema(200);

/** A hand-edited value counts as no translations, so a page still shows the label as written. */
export function readLabelTranslations(text: string | null | undefined): LabelTranslations {
  if (!text) return {};
  try {
    const parsed = stored.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export function writeLabelTranslations(translations: LabelTranslations | undefined): string {
  return JSON.stringify(translations ?? {});
}

export function sameTranslations(a: LabelTranslations | undefined, b: LabelTranslations | undefined) {
  return writeLabelTranslations(a) === writeLabelTranslations(b);
}

/** Every catalogue names its own language, so any `t` answers without being handed it. */
export function languageOf(t: TFunction): string {
  return t("common:languageCode");
}

export function ownTranslation(
  t: TFunction,
  translations: LabelTranslations | undefined,
): string | undefined {
  return translations?.[languageOf(t)] || undefined;
}

import type { TFunction } from "i18next";
import { z } from "zod";

// What an admin writes as a label (a role's, a menu item's) is in one language, whichever they
// wrote it in. They may add the label for other languages; each is kept as a JSON object of
// language code to text in the row's `label_translations` column (db/migrations/030), checked
// with this schema when saved and again when read. Which label a page shows is decided in
// role-labels.ts and components/sidebar-labels.ts (docs/decisions/040-label-translations.md).

export type LabelTranslations = Record<string, string>;

/** A form's parsed input as other code may hand it to the domain: no translations means none. */
export type MaybeTranslated<T extends { translations: LabelTranslations }> = Omit<T, "translations"> & {
  translations?: LabelTranslations;
};

const LANGUAGE_CODE = /^[a-z]{2,3}$/;

/** Nobody types a control character in a label; PostgreSQL text cannot hold NUL at all. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The per-language labels of one form, each trimmed and at most `max` long like the label itself.
 * A language left empty has no label of its own (removed when it had one): the form says them all.
 */
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

/**
 * A row's column as an object. A value that is not what this app writes (edited by hand in the
 * database) counts as no translations, so a page still shows the label as written.
 */
export function readLabelTranslations(text: string | null | undefined): LabelTranslations {
  if (!text) return {};
  try {
    const parsed = stored.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The column's text for an object the schema produced. */
export function writeLabelTranslations(translations: LabelTranslations | undefined): string {
  return JSON.stringify(translations ?? {});
}

export function sameTranslations(a: LabelTranslations | undefined, b: LabelTranslations | undefined) {
  return writeLabelTranslations(a) === writeLabelTranslations(b);
}

/**
 * The language a `t` speaks: every catalogue names its own (common:languageCode), so any `t` (a
 * page's, a request's, an email's) answers without being handed the language separately.
 */
export function languageOf(t: TFunction): string {
  return t("common:languageCode");
}

/** The label an admin wrote for the `t`'s language, if any. */
export function ownTranslation(
  t: TFunction,
  translations: LabelTranslations | undefined,
): string | undefined {
  return translations?.[languageOf(t)] || undefined;
}

import type { FieldMetadata } from "@conform-to/react";
import type { TFunction } from "i18next";
import { type LabelTranslations, languageOf } from "../../access/label-translations";
import { TextField } from "../../components/forms/fields";
import { cn } from "../../components/ui/cn";
import { controlVariants } from "../../components/ui/field";
import { availableLanguages } from "../../i18n/load-language";
import { FALLBACK_LANGUAGE } from "../../i18n/options";
import { useTranslation } from "../../i18n/use-translation";

// A field left empty shows the label as written (decision 040).

export const TRANSLATED_LANGUAGES = availableLanguages.filter((l) => l !== FALLBACK_LANGUAGE);

function languageName(t: TFunction, language: string): string {
  const page = languageOf(t);
  const name = new Intl.DisplayNames([page], { type: "language" }).of(language) ?? language;
  return name.charAt(0).toLocaleUpperCase(page) + name.slice(1);
}

export function translatedLabelName(t: TFunction, language: string): string {
  return t("access:labels.inLanguage", { language: languageName(t, language) });
}

/** `meta` is the form's `translations` field, `max` the label's own limit. */
export function LocalizedLabelFields({
  meta,
  max,
  className,
}: {
  // biome-ignore lint/suspicious/noExplicitAny: the translations field of any form
  meta: FieldMetadata<Partial<Record<string, string | undefined>> | undefined, any, string[]>;
  max: number;
  className?: string;
}) {
  const { t } = useTranslation();
  const fields = meta.getFieldset();
  return (
    <>
      {TRANSLATED_LANGUAGES.map((language) => {
        const field = fields[language];
        return field ? (
          <TextField
            key={language}
            meta={field}
            label={translatedLabelName(t, language)}
            description={t("access:labels.optional")}
            maxLength={max}
            autoComplete="off"
            className={className}
          />
        ) : null;
      })}
    </>
  );
}

/** For the role matrix's uncontrolled inputs: one row per language, one input per editable role. */
export function LocalizedLabelRows({
  roles,
  editable,
  formId,
  errorsOf,
  cellClass,
}: {
  roles: { id: string; name: string; translations: LabelTranslations }[];
  editable: { id: string }[];
  formId: string;
  errorsOf: (index: number, language: string) => { id: string; errors?: string[] } | undefined;
  cellClass: string;
}) {
  const { t } = useTranslation();
  return TRANSLATED_LANGUAGES.map((language) => {
    const name = translatedLabelName(t, language);
    return (
      <tr key={language}>
        <th scope="row" className={cellClass}>
          {name}
        </th>
        {roles.map((r) => {
          const index = editable.findIndex((e) => e.id === r.id);
          if (index < 0) return <td key={r.id} />;
          const id = `${formId}-${language}-${r.id}`;
          const value = r.translations[language] ?? "";
          const error = errorsOf(index, language);
          return (
            <td key={r.id} className="px-3 py-2 align-top">
              <label className="sr-only" htmlFor={id}>
                {t("access:labels.ofRole", { label: name, name: r.name })}
              </label>
              <input
                key={`${r.id}:${value}`}
                id={id}
                name={`roles[${index}].translations.${language}`}
                defaultValue={value}
                maxLength={80}
                autoComplete="off"
                aria-invalid={error?.errors ? true : undefined}
                aria-describedby={error?.errors ? error.id : undefined}
                className={cn(controlVariants({ size: "sm" }), "w-32")}
              />
              {error?.errors ? (
                <p id={error.id} className="mt-1 text-xs text-destructive">
                  {error.errors[0]}
                </p>
              ) : null}
            </td>
          );
        })}
      </tr>
    );
  });
}

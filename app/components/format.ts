import { useMemo } from "react";
import { FALLBACK_LANGUAGE, intlLocale } from "../i18n/options";
import { useTranslation } from "../i18n/use-translation";

// Dates and numbers in the page's language through Intl (en → en-GB, de → de-DE). Times stay in UTC
// and say so: the server renders the same text the browser hydrates, whatever the reader's zone.

const dateTimes = new Map<string, Intl.DateTimeFormat>();
const numbers = new Map<string, Intl.NumberFormat>();

function dateTimeFormat(language: string): Intl.DateTimeFormat {
  let format = dateTimes.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(intlLocale(language), {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone: "UTC",
    });
    dateTimes.set(language, format);
  }
  return format;
}

function numberFormat(language: string): Intl.NumberFormat {
  let format = numbers.get(language);
  if (!format) {
    format = new Intl.NumberFormat(intlLocale(language));
    numbers.set(language, format);
  }
  return format;
}

const dayMonths = new Map<string, Intl.DateTimeFormat>();

/** "14/11" (en), "14.11." (de): a chart's day labels, from "2026-11-14". */
export function formatDayMonthIn(language: string, day: string): string {
  let format = dayMonths.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(intlLocale(language), {
      day: "2-digit",
      month: "2-digit",
      timeZone: "UTC",
    });
    dayMonths.set(language, format);
  }
  return format.format(new Date(`${day}T00:00:00Z`));
}

const dates = new Map<string, Intl.DateTimeFormat>();

/** "14 Nov 2026" (en), "14.11.2026" (de): a day without a time, from "2026-11-14". */
export function formatDateIn(language: string, day: string): string {
  let format = dates.get(language);
  if (!format) {
    format = new Intl.DateTimeFormat(intlLocale(language), { dateStyle: "medium", timeZone: "UTC" });
    dates.set(language, format);
  }
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : format.format(date);
}

/** "23 Nov 2026, 07:39 UTC" (en), "23.11.2026, 07:39 UTC" (de); a dash for no date. */
export function formatDateTimeIn(language: string, iso: string | null | undefined): string {
  return iso ? `${dateTimeFormat(language).format(new Date(iso))} UTC` : "—";
}

/** "1,234" (en), "1.234" (de). */
export function formatNumberIn(language: string, n: number): string {
  return numberFormat(language).format(n);
}

export type Format = {
  formatDateTime: (iso: string | null | undefined) => string;
  formatNumber: (n: number) => string;
};

/** The formatters for the language the page is shown in: `const { formatDateTime } = useFormat();` */
export function useFormat(): Format {
  const { i18n } = useTranslation();
  const language = i18n.language || FALLBACK_LANGUAGE;
  return useMemo(
    () => ({
      formatDateTime: (iso) => formatDateTimeIn(language, iso),
      formatNumber: (n) => formatNumberIn(language, n),
    }),
    [language],
  );
}

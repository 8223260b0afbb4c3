import type { TFunction } from "i18next";
import { Link, useSearchParams } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { formatNumberIn } from "../format";
import { buttonVariants } from "./button";

type Total = { count: number; capped: boolean };

/** "Showing 26–50 of 1,000+ users": where this page sits, and how many match (capped, or unknown). */
function rangeText(
  t: TFunction,
  language: string,
  start: number,
  shown: number,
  total: Total | null,
  noun: string,
): string {
  if (shown === 0) return t("ui:pagination.none", { noun });
  const from = formatNumberIn(language, start);
  const to = formatNumberIn(language, start + shown - 1);
  if (!total) return t("ui:pagination.range", { from, to });
  const count = `${formatNumberIn(language, total.count)}${total.capped ? "+" : ""}`;
  return t("ui:pagination.rangeOf", { from, to, total: count, noun });
}

/**
 * Previous/next links of a keyset-paged list (cursors from db/keyset.ts), keeping every other
 * list parameter in the URL. A link is left out when there is nothing on its side.
 */
export function Pagination({
  label,
  start,
  shown,
  total = null,
  noun,
  prev,
  next,
  prevLabel,
  nextLabel,
  range,
}: {
  /** The nav's name, so a page with two lists tells them apart. */
  label: string;
  start: number;
  shown: number;
  total?: Total | null;
  noun: string;
  prev: string | null;
  next: string | null;
  prevLabel?: string;
  nextLabel?: string;
  /** The range in the caller's own words (else rangeText's). */
  range?: string;
}) {
  const [params] = useSearchParams();
  const { t, i18n } = useTranslation();
  const to = (side: "after" | "before", cursor: string) => {
    const url = new URLSearchParams(params);
    for (const name of ["page", "after", "before"]) url.delete(name);
    url.set(side, cursor);
    return `?${url}`;
  };
  const linkClass = buttonVariants({ variant: "outline", size: "sm" });
  return (
    <nav aria-label={label} className="mt-4 flex flex-wrap items-center justify-between gap-2 text-sm">
      <p data-testid="page-range">{range ?? rangeText(t, i18n.language, start, shown, total, noun)}</p>
      <div className="flex gap-2">
        {prev ? (
          <Link className={linkClass} to={to("before", prev)} rel="prev">
            {prevLabel ?? t("ui:pagination.previous")}
          </Link>
        ) : null}
        {next ? (
          <Link className={linkClass} to={to("after", next)} rel="next">
            {nextLabel ?? t("ui:pagination.next")}
          </Link>
        ) : null}
      </div>
    </nav>
  );
}

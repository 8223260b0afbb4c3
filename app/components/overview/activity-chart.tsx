import { useTranslation } from "../../i18n/use-translation";
import { formatDayMonthIn } from "../format";
import { emptyStateClass } from "../ui/card";

// A small server-rendered bar chart: no chart library, readable in both themes.
export function ActivityChart({
  days,
  series,
  emptyText,
}: {
  days: string[];
  series: { label: string; values: number[]; className: string }[];
  /** Said instead of a row of empty bars when every value is zero. */
  emptyText: string;
}) {
  const { t, i18n } = useTranslation();
  const labels = days.map((day) => formatDayMonthIn(i18n.language, day));
  if (series.every((s) => s.values.every((v) => v === 0)))
    return (
      <p className={emptyStateClass} data-testid="chart-empty">
        {emptyText}
      </p>
    );
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const width = 560;
  const height = 160;
  const groupWidth = width / days.length;
  const barWidth = (groupWidth - 6) / series.length;
  const summary = series
    .map((s) =>
      t("overview:chart.summary", {
        series: s.label,
        total: s.values.reduce((a, b) => a + b, 0),
        days: days.length,
      }),
    )
    .join("; ");
  return (
    <figure>
      <svg
        viewBox={`0 0 ${width} ${height + 20}`}
        role="img"
        aria-label={summary}
        className="w-full max-w-2xl"
      >
        {days.map((day, i) =>
          series.map((s, j) => {
            const value = s.values[i] ?? 0;
            const h = (value / max) * height;
            return (
              <rect
                key={`${day}-${s.label}`}
                x={i * groupWidth + 3 + j * barWidth}
                y={height - h}
                width={barWidth - 1}
                height={h}
                className={s.className}
              >
                <title>{`${labels[i]} ${s.label}: ${value}`}</title>
              </rect>
            );
          }),
        )}
        {days.map((day, i) =>
          i % 2 === 0 ? (
            <text
              key={day}
              x={i * groupWidth + groupWidth / 2}
              y={height + 14}
              textAnchor="middle"
              className="fill-current text-[10px]"
            >
              {labels[i]}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption className="mt-2 flex gap-4 text-xs">
        {series.map((s) => (
          <span key={s.label} className="flex items-center gap-1">
            <svg aria-hidden width="10" height="10">
              <rect width="10" height="10" className={s.className} />
            </svg>
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

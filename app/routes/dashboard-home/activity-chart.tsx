import { useEffect, useId, useState } from "react";
import { formatDateIn, formatDayMonthIn, formatNumberIn } from "../../components/format";
import { emptyStateClass } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";

type Series = { label: string; values: number[]; className: string };

/** Labels read at 12 px however narrow the chart: the svg scales its user units with its width. */
const LABEL_PX = 12;

function useLabelSize() {
  const [svg, ref] = useState<SVGSVGElement | null>(null);
  const [size, setSize] = useState(LABEL_PX);
  useEffect(() => {
    if (!svg) return;
    const measure = () => {
      const width = svg.getBoundingClientRect().width;
      if (width > 0) setSize(Math.max(LABEL_PX, (LABEL_PX * WIDTH) / width));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(svg);
    return () => observer.disconnect();
  }, [svg]);
  return { ref, size };
}

const WIDTH = 600;
const HEIGHT = 190;
const PLOT = { left: 36, right: 4, top: 8, bottom: 22 };
const PLOT_HEIGHT = HEIGHT - PLOT.top - PLOT.bottom;

/** Round steps (1, 2, 5 × 10ⁿ) from 0 to at least `max`, four or five of them: the y axis. */
export function yTicks(max: number): number[] {
  if (max <= 4) return Array.from({ length: Math.max(1, max) + 1 }, (_, i) => i);
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
}

/**
 * A small server-rendered bar chart, no chart library, readable in both themes: counts per day on
 * a labelled y axis, the days on the x axis. Each day is one stop for pointer and keyboard alike:
 * hovering or focusing it shows its values, and its accessible name says them ("14 Nov 2026:
 * Sign-ins 3, Tasks 2"). The days are one tab stop; the arrow keys, Home and End move between them.
 */
export function ActivityChart({
  days,
  series,
  emptyText,
}: {
  days: string[];
  series: Series[];
  /** Said instead of a row of empty bars when every value is zero. */
  emptyText: string;
}) {
  const { t, i18n } = useTranslation();
  const hintId = useId();
  const [current, setCurrent] = useState(days.length - 1);
  const [shown, setShown] = useState<number | null>(null);
  const [focused, setFocused] = useState(false);
  const labelSize = useLabelSize();
  if (series.every((s) => s.values.every((v) => v === 0)))
    return (
      <p className={emptyStateClass} data-testid="chart-empty">
        {emptyText}
      </p>
    );

  const language = i18n.language;
  const ticks = yTicks(Math.max(1, ...series.flatMap((s) => s.values)));
  const top = ticks.at(-1)!;
  const y = (value: number) => PLOT.top + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  const groupWidth = (WIDTH - PLOT.left - PLOT.right) / days.length;
  const barWidth = (groupWidth - 6) / series.length;
  const dayLabel = (i: number) => formatDayMonthIn(language, days[i]!);
  const valuesOf = (i: number) =>
    series.map((s) => ({ label: s.label, value: s.values[i] ?? 0, className: s.className }));
  const dayName = (i: number) =>
    t("overview:chart.day", {
      day: formatDateIn(language, days[i]!),
      values: valuesOf(i)
        .map((v) => t("overview:chart.value", { series: v.label, n: formatNumberIn(language, v.value) }))
        .join(", "),
    });
  const summary = series
    .map((s) =>
      t("overview:chart.summary", {
        series: s.label,
        total: s.values.reduce((a, b) => a + b, 0),
        days: days.length,
      }),
    )
    .join("; ");

  function move(event: React.KeyboardEvent<SVGGElement>, i: number) {
    const to =
      event.key === "ArrowRight" || event.key === "ArrowUp"
        ? Math.min(days.length - 1, i + 1)
        : event.key === "ArrowLeft" || event.key === "ArrowDown"
          ? Math.max(0, i - 1)
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? days.length - 1
              : null;
    if (to === null) return;
    event.preventDefault();
    setCurrent(to);
    const next = event.currentTarget.parentElement?.querySelector<SVGGElement>(`[data-day="${to}"]`);
    next?.focus();
  }

  const tip = shown === null ? null : { i: shown, center: PLOT.left + (shown + 0.5) * groupWidth };
  return (
    <figure>
      <p id={hintId} className="sr-only">
        {t("overview:chart.keys")}
      </p>
      {/* The tooltip is placed in the svg's own box: both share this wrapper's width. */}
      <div className="relative w-full max-w-2xl">
        <svg
          ref={labelSize.ref}
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="group"
          aria-label={summary}
          aria-describedby={hintId}
          className="w-full overflow-visible"
          data-testid="activity-chart"
        >
          <g aria-hidden>
            {ticks.map((tick) => (
              <g key={tick}>
                <line
                  x1={PLOT.left}
                  x2={WIDTH - PLOT.right}
                  y1={y(tick)}
                  y2={y(tick)}
                  className="stroke-border"
                  strokeWidth={1}
                />
                <text
                  x={PLOT.left - 6}
                  y={y(tick)}
                  dy="0.35em"
                  textAnchor="end"
                  className="fill-current"
                  fontSize={labelSize.size}
                  data-testid="y-tick"
                >
                  {formatNumberIn(language, tick)}
                </text>
              </g>
            ))}
            {days.map((day, i) =>
              i % 2 === (days.length - 1) % 2 ? (
                <text
                  key={day}
                  x={PLOT.left + i * groupWidth + groupWidth / 2}
                  y={HEIGHT - 6}
                  textAnchor="middle"
                  className="fill-current"
                  fontSize={labelSize.size}
                >
                  {dayLabel(i)}
                </text>
              ) : null,
            )}
          </g>
          {days.map((day, i) => {
            const x = PLOT.left + i * groupWidth;
            return (
              <g
                key={day}
                data-day={i}
                role="img"
                aria-label={dayName(i)}
                tabIndex={i === current ? 0 : -1}
                className="outline-none"
                onMouseEnter={() => setShown(i)}
                onMouseLeave={() => setShown(focused ? current : null)}
                onFocus={() => {
                  setCurrent(i);
                  setShown(i);
                  setFocused(true);
                }}
                onBlur={() => {
                  setFocused(false);
                  setShown(null);
                }}
                onKeyDown={(event) => move(event, i)}
              >
                <rect
                  x={x + 1}
                  y={PLOT.top}
                  width={groupWidth - 2}
                  height={PLOT_HEIGHT}
                  className={
                    shown === i
                      ? focused && current === i
                        ? "fill-accent stroke-ring"
                        : "fill-accent"
                      : "fill-transparent"
                  }
                  strokeWidth={focused && current === i ? 2 : 0}
                />
                {valuesOf(i).map((v, j) => (
                  <rect
                    key={v.label}
                    x={x + 3 + j * barWidth}
                    y={y(v.value)}
                    width={barWidth - 1}
                    height={PLOT.top + PLOT_HEIGHT - y(v.value)}
                    className={v.className}
                  />
                ))}
              </g>
            );
          })}
        </svg>
        {tip ? (
          <div
            aria-hidden
            data-testid="chart-tooltip"
            className="pointer-events-none absolute top-0 z-10 w-max max-w-56 rounded-md border bg-popover px-2 py-1 text-xs text-popover-foreground shadow"
            style={{
              left: `${(tip.center / WIDTH) * 100}%`,
              transform: `translateX(${tip.i < 2 ? "0" : tip.i > days.length - 3 ? "-100%" : "-50%"})`,
            }}
          >
            <p className="font-medium">{formatDateIn(language, days[tip.i]!)}</p>
            {valuesOf(tip.i).map((v) => (
              <p key={v.label} className="flex items-center gap-1">
                <svg aria-hidden width="8" height="8">
                  <rect width="8" height="8" className={v.className} />
                </svg>
                {t("overview:chart.value", { series: v.label, n: formatNumberIn(language, v.value) })}
              </p>
            ))}
          </div>
        ) : null}
      </div>
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

import { Fragment } from "react";
import { Link } from "react-router";
import { useFormat } from "../../components/format";
import { linkVariants } from "../../components/ui/link";

/** A part of a card's details ("17 disabled"); with `to`, a link to the list it counts. */
export type StatDetail = { label: string; to?: string };

/**
 * A number on the overview. Its details link to the list behind them when given `to`, so
 * "17 disabled" opens those 17 people rather than being a dead end.
 */
export function StatCard({
  title,
  value,
  details,
  testId,
}: {
  title: string;
  value: number;
  details?: StatDetail[];
  testId?: string;
}) {
  const { formatNumber } = useFormat();
  return (
    <section data-testid={testId} className="min-w-0 rounded-lg border bg-card p-4">
      <h2 className="text-sm font-medium text-muted-foreground">{title}</h2>
      <p className="mt-1 text-3xl font-semibold">{formatNumber(value)}</p>
      {details?.length ? (
        <p className="mt-1 text-xs text-muted-foreground">
          {details.map((detail, i) => (
            <Fragment key={detail.label}>
              {i > 0 ? " · " : null}
              {detail.to ? (
                <Link to={detail.to} className={linkVariants()}>
                  {detail.label}
                </Link>
              ) : (
                detail.label
              )}
            </Fragment>
          ))}
        </p>
      ) : null}
    </section>
  );
}

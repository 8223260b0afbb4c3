import { useFormat } from "../format";

export function StatCard({
  title,
  value,
  details,
  testId,
}: {
  title: string;
  value: number;
  details?: string;
  testId?: string;
}) {
  const { formatNumber } = useFormat();
  return (
    <section data-testid={testId} className="min-w-0 rounded-lg border bg-card p-4">
      <h2 className="text-sm font-medium text-muted-foreground">{title}</h2>
      <p className="mt-1 text-3xl font-semibold">{formatNumber(value)}</p>
      {details ? <p className="mt-1 text-xs text-muted-foreground">{details}</p> : null}
    </section>
  );
}

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
    <section
      data-testid={testId}
      className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
    >
      <h2 className="text-sm font-medium text-slate-700 dark:text-slate-300">{title}</h2>
      <p className="mt-1 text-3xl font-semibold">{formatNumber(value)}</p>
      {details ? <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{details}</p> : null}
    </section>
  );
}

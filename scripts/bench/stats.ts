/** The q-quantile (0..1) of `samples` by the nearest-rank method: always one of the measured values. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export type Latency = { p50: number; p95: number; samples: number };

export function latencyOf(samples: readonly number[]): Latency {
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), samples: samples.length };
}

/** `value` as a multiple of `base`; NaN when there is nothing to compare with. */
export function ratio(value: number, base: number | undefined): number {
  return base && Number.isFinite(base) && base > 0 ? value / base : Number.NaN;
}

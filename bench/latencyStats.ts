/** Percentiles by nearest rank over every sample (no histogram buckets: sub-millisecond figures stay exact). */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarizeLatencies(samplesMs: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samplesMs).sort();
  const at = (fraction: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!);
  return {
    count: sorted.length,
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted.length === 0 ? NaN : sorted[sorted.length - 1]!,
  };
}

/** Times `count` sequential calls of fn after `warmup` untimed ones. */
export async function timeSequential(count: number, warmup: number, fn: (index: number) => Promise<void>): Promise<LatencySummary> {
  for (let index = 0; index < warmup; index++) await fn(index);
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await fn(index);
    samples.push(performance.now() - started);
  }
  return summarizeLatencies(samples);
}

import { NANOS_PER_USD_BIGINT } from '../money/nanoUsd.js';

/** Base metrics summed over a window, money in nano-USD exactly as the rollups hold it. */
export interface MetricSums {
  impressions: number;
  clicks: number;
  conversions: number;
  spendNanos: bigint;
  revenueNanos: bigint;
}

export const ZERO_SUMS: MetricSums = { impressions: 0, clicks: 0, conversions: 0, spendNanos: 0n, revenueNanos: 0n };

export function addSums(a: MetricSums, b: MetricSums): MetricSums {
  return {
    impressions: a.impressions + b.impressions,
    clicks: a.clicks + b.clicks,
    conversions: a.conversions + b.conversions,
    spendNanos: a.spendNanos + b.spendNanos,
    revenueNanos: a.revenueNanos + b.revenueNanos,
  };
}

/** The metrics of a reporting row, in the order of the spec's table. */
export interface PerformanceMetrics {
  impressions: number;
  clicks: number;
  conversions: number;
  spend_usd: number;
  revenue_usd: number;
  ctr: number;
  cpc_usd: number;
  cpa_usd: number;
  cvr: number;
  ecpm_usd: number;
  roas: number;
}

export const performanceMetricNames = [
  'impressions',
  'clicks',
  'conversions',
  'spend_usd',
  'revenue_usd',
  'ctr',
  'cpc_usd',
  'cpa_usd',
  'cvr',
  'ecpm_usd',
  'roas',
] as const satisfies ReadonlyArray<keyof PerformanceMetrics>;

/**
 * Money and rates from the sums by the spec's formulas, never from daily rates. Each figure is the
 * exact quotient of integer sums rounded once, half away from zero, to 6 decimals (micro-USD for
 * money, millionths of a percent for ctr and cvr); a rate whose denominator is 0 is 0.
 */
export function performanceMetrics(sums: MetricSums): PerformanceMetrics {
  const impressions = BigInt(sums.impressions);
  const clicks = BigInt(sums.clicks);
  const conversions = BigInt(sums.conversions);
  return {
    impressions: sums.impressions,
    clicks: sums.clicks,
    conversions: sums.conversions,
    spend_usd: roundedQuotient(sums.spendNanos, NANOS_PER_USD_BIGINT),
    revenue_usd: roundedQuotient(sums.revenueNanos, NANOS_PER_USD_BIGINT),
    ctr: roundedQuotient(clicks * 100n, impressions),
    cpc_usd: roundedQuotient(sums.spendNanos, clicks * NANOS_PER_USD_BIGINT),
    cpa_usd: roundedQuotient(sums.spendNanos, conversions * NANOS_PER_USD_BIGINT),
    cvr: roundedQuotient(conversions * 100n, clicks),
    ecpm_usd: roundedQuotient(sums.spendNanos * 1000n, impressions * NANOS_PER_USD_BIGINT),
    roas: roundedQuotient(sums.revenueNanos, sums.spendNanos),
  };
}

const SCALE = 1_000_000n;

/** numerator / denominator to 6 decimals, rounded half away from zero; 0 when the denominator is 0. */
export function roundedQuotient(numerator: bigint, denominator: bigint): number {
  if (denominator === 0n) return 0;
  const scaled = numerator * SCALE;
  let quotient = scaled / denominator;
  const remainder = scaled % denominator;
  const absolute = (value: bigint) => (value < 0n ? -value : value);
  if (2n * absolute(remainder) >= absolute(denominator)) quotient += (scaled < 0n) === (denominator < 0n) ? 1n : -1n;
  return Number(quotient) / 1_000_000;
}

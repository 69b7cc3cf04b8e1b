import { roundedQuotient } from './performanceMetrics.js';
import { NANO_PPM_PER_USD } from './revenueShares.js';

/** A publisher's base figures over a window; earnings in nano-USD times parts-per-million of share. */
export interface PublisherSums {
  requests: number;
  filled: number;
  impressions: number;
  clicks: number;
  invalidImpressions: number;
  earningsNanoPpm: bigint;
}

export const ZERO_PUBLISHER_SUMS: PublisherSums = { requests: 0, filled: 0, impressions: 0, clicks: 0, invalidImpressions: 0, earningsNanoPpm: 0n };

export function addPublisherSums(a: PublisherSums, b: Partial<PublisherSums>): PublisherSums {
  return {
    requests: a.requests + (b.requests ?? 0),
    filled: a.filled + (b.filled ?? 0),
    impressions: a.impressions + (b.impressions ?? 0),
    clicks: a.clicks + (b.clicks ?? 0),
    invalidImpressions: a.invalidImpressions + (b.invalidImpressions ?? 0),
    earningsNanoPpm: a.earningsNanoPpm + (b.earningsNanoPpm ?? 0n),
  };
}

export interface PublisherMetrics {
  requests: number;
  filled: number;
  fill_rate: number;
  impressions: number;
  clicks: number;
  ctr: number;
  earnings_usd: number;
  ecpm_usd: number;
  invalid_impressions: number;
}

export const publisherMetricNames = [
  'requests',
  'filled',
  'fill_rate',
  'impressions',
  'clicks',
  'ctr',
  'earnings_usd',
  'ecpm_usd',
  'invalid_impressions',
] as const satisfies ReadonlyArray<keyof PublisherMetrics>;

/** Rates from the window's sums, rounded once to 6 decimals as the advertiser report does. */
export function publisherMetrics(sums: PublisherSums): PublisherMetrics {
  return {
    requests: sums.requests,
    filled: sums.filled,
    fill_rate: roundedQuotient(BigInt(sums.filled) * 100n, BigInt(sums.requests)),
    impressions: sums.impressions,
    clicks: sums.clicks,
    ctr: roundedQuotient(BigInt(sums.clicks) * 100n, BigInt(sums.impressions)),
    earnings_usd: roundedQuotient(sums.earningsNanoPpm, NANO_PPM_PER_USD),
    ecpm_usd: roundedQuotient(sums.earningsNanoPpm * 1000n, BigInt(sums.impressions) * NANO_PPM_PER_USD),
    invalid_impressions: sums.invalidImpressions,
  };
}

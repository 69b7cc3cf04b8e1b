/**
 * Money is counted in nano-USD, billionths of a dollar, wherever it is priced, held, stored or
 * summed: whole numbers, so that a sum of many events is exact (events_v1's cost_nanos and
 * revenue_nanos are integers too).
 */
export const NANOS_PER_USD = 1_000_000_000;

/** The same, for reports that divide exact bigint sums of nano-USD. */
export const NANOS_PER_USD_BIGINT = BigInt(NANOS_PER_USD);

/** `usd` to the nearest nano-USD. */
export function usdToNanos(usd: number): number {
  return Math.round(usd * NANOS_PER_USD);
}

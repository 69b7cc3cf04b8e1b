/**
 * Days here are UTC days, as the rollups bucket events (toDate of a UTC column) and budgets reset:
 * whole multiples of this many ms since the epoch (Unix time has no leap seconds).
 */
export const MS_PER_DAY = 86_400_000;

/** The UTC day that holds `ms`, in whole days since 1970-01-01. */
export function utcDay(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

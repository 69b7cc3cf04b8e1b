import { MS_PER_DAY, utcDay } from '../../src/utcDays.js';

/**
 * A time of today (UTC) that is already past, for an event a test means as today's: `agoMs` ago,
 * or today's midnight when that was yesterday. `Date.now() - 60_000` alone is yesterday in the
 * first minute of a UTC day, and a test about today's spend or a report of today then tests
 * yesterday, or fails.
 */
export function earlierToday(agoMs = 60_000, nowMs = Date.now()): number {
  return Math.max(nowMs - agoMs, utcDay(nowMs) * MS_PER_DAY);
}

/**
 * Days here are UTC days, as the rollups bucket events (toDate of a UTC column), reports count them
 * and budgets reset: whole multiples of this many ms since the epoch (Unix time has no leap
 * seconds), or calendar dates written 'YYYY-MM-DD'.
 *
 * The console bundles this file too (SHARED_WITH_CONSOLE in src/console/buildConsole.ts), so that
 * its date windows count days as the reports do: it stays free of imports.
 */
export const MS_PER_DAY = 86_400_000;

/** The UTC day that holds `ms`, in whole days since 1970-01-01. */
export function utcDay(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** The UTC date that holds `ms`, as 'YYYY-MM-DD'. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written exactly as YYYY-MM-DD: not 2026-02-30, not 2026-1-5. */
export function isCalendarDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function todayUtc(now: Date = new Date()): string {
  return utcDate(now.getTime());
}

export function addDays(date: string, days: number): string {
  return utcDate(Date.parse(`${date}T00:00:00Z`) + days * MS_PER_DAY);
}

/** `to` minus `from` in whole days: 0 for the same day, negative when `to` comes first. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / MS_PER_DAY);
}

/** Every date from `from` to `to`, both included, ascending. */
export function eachDate(from: string, to: string): string[] {
  const count = daysBetween(from, to) + 1;
  return Array.from({ length: Math.max(0, count) }, (_, index) => addDays(from, index));
}

/** The UTC calendar month of a UTC day (utcDay), in whole months since January 1970: budgets' months are UTC months, as their days are UTC days. */
export function utcMonthOfDay(day: number): number {
  const date = new Date(day * MS_PER_DAY);
  return (date.getUTCFullYear() - 1970) * 12 + date.getUTCMonth();
}

/** The first UTC day (utcDay) of the month that holds `day`. */
export function firstDayOfMonth(day: number): number {
  const date = new Date(day * MS_PER_DAY);
  return utcDay(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

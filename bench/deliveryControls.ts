/**
 * The delivery controls of issue 14 as a realistic catalog would use them, for the serve-controls
 * bench: every campaign has a flight and line items mix lifetime budgets, even and asap pacing,
 * frequency caps, country lists and dayparts. They are drawn so that most serves still find an ad
 * while the run lasts: flights started in the past and end after it (or never), lifetime budgets
 * far above what a run spends, country lists that the traffic's countries mostly satisfy, and
 * daypart windows that hold the current time in their zone for most line items.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Shares of line items with each control (the rest go without it). */
export const controlShares = {
  lifetimeBudget: 0.6,
  evenPacing: 0.6,
  frequencyCap: 0.4,
  countriesInclude: 0.3,
  countriesExclude: 0.15,
  dayparts: 0.3,
  /** Of the dayparted line items: those whose windows leave out the time of the run (they serve nothing). */
  daypartsOutsideRun: 0.15,
  /** Of the campaigns: flights with no end. */
  openEndedFlight: 0.3,
} as const;

/** Country lists advertisers target (as include lists): regions that hold most of the traffic's countries. */
const includeLists = [
  ['US', 'CA'],
  ['US', 'CA', 'GB', 'AU'],
  ['DE', 'FR', 'GB'],
  ['US', 'GB', 'DE', 'FR', 'CA', 'AU'],
  ['US'],
  ['DE', 'AT', 'CH'],
] as const;
/** Exclude lists: markets a brand does not sell in; the traffic's countries are rarely among them. */
const excludeLists = [['CN', 'RU'], ['BR'], ['IN', 'PK', 'BD'], ['FR']] as const;
const timezones = ['America/New_York', 'America/Los_Angeles', 'Europe/Berlin', 'Europe/London', 'Asia/Tokyo', 'Australia/Sydney'] as const;
const capWindows = ['hour', 'day', 'week', 'lifetime'] as const;

interface Flight {
  starts_at: string;
  ends_at: string | null;
}

/** A flight that started 1-30 days before `nowMs` and ends 7-60 days after it, or never. */
export function flightAround(random: () => number, nowMs: number): Flight {
  const startsAt = new Date(nowMs - (1 + Math.floor(random() * 30)) * DAY_MS).toISOString();
  const endsAt = random() < controlShares.openEndedFlight ? null : new Date(nowMs + (7 + Math.floor(random() * 54)) * DAY_MS).toISOString();
  return { starts_at: startsAt, ends_at: endsAt };
}

/** A frequency cap in a realistic range: a few impressions an hour up to a few dozen ever. */
interface CapInput {
  impressions: number;
  per: (typeof capWindows)[number];
}

/**
 * The line item fields (API input shape) that add controls to a line item with this daily budget:
 * budget.lifetime and budget.pacing, frequency_cap, and targeting.countries and targeting.dayparts.
 */
export function lineItemControls(
  random: () => number,
  daily: number,
  nowMs: number,
): { budget: Record<string, unknown>; frequency_cap?: CapInput; targeting: Record<string, unknown> } {
  const budget: Record<string, unknown> = { pacing: random() < controlShares.evenPacing ? 'even' : 'asap' };
  // A year of the daily budget: the run spends nothing near it, so it never stops delivery here.
  if (random() < controlShares.lifetimeBudget) budget.lifetime = daily * 365;
  const targeting: Record<string, unknown> = {};
  const countryRoll = random();
  if (countryRoll < controlShares.countriesInclude) targeting.countries = { include: [...pick(random, includeLists)] };
  else if (countryRoll < controlShares.countriesInclude + controlShares.countriesExclude) targeting.countries = { exclude: [...pick(random, excludeLists)] };
  if (random() < controlShares.dayparts) targeting.dayparts = daypartsAround(random, nowMs);
  const controls: ReturnType<typeof lineItemControls> = { budget, targeting };
  if (random() < controlShares.frequencyCap) {
    const per = pick(random, capWindows);
    const base = { hour: 3, day: 10, week: 20, lifetime: 40 }[per];
    controls.frequency_cap = { impressions: base + Math.floor(random() * base), per };
  }
  return controls;
}

/**
 * Dayparts in one of a few zones. Most cover the time of the run: a window from some hours before
 * the zone's local time now to some hours after it (split at midnight, as windows cannot cross
 * it), every day; the others (daypartsOutsideRun) cover only the hours away from it.
 */
function daypartsAround(random: () => number, nowMs: number): Record<string, unknown> {
  const timezone = pick(random, timezones);
  const localHour = localHourIn(timezone, nowMs);
  const before = 2 + Math.floor(random() * 6);
  const after = 2 + Math.floor(random() * 6);
  const outside = random() < controlShares.daypartsOutsideRun;
  // Whole hours, from `from` (inclusive) for `length` hours, wrapping past midnight.
  const from = outside ? (localHour + after + 1) % 24 : (localHour - before + 24) % 24;
  const length = outside ? Math.max(1, 24 - before - after - 2) : before + after + 1;
  const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const windows: Array<{ days: string[]; start: string; end: string }> = [];
  if (from + length <= 24) windows.push({ days, start: clock(from), end: clock(from + length) });
  else windows.push({ days, start: clock(from), end: '24:00' }, { days, start: '00:00', end: clock(from + length - 24) });
  return { timezone, windows };
}

function localHourIn(timezone: string, nowMs: number): number {
  const hour = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hour: '2-digit', hourCycle: 'h23' }).formatToParts(nowMs).find((part) => part.type === 'hour');
  return Number(hour!.value);
}

function clock(hour: number): string {
  return `${String(hour).padStart(2, '0')}:00`;
}

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

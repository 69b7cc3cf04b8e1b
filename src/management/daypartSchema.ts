import { z } from 'zod';

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** "HH:MM" as minutes since midnight; an end may be 24:00, the end of the day. */
const clockTime = (allowEndOfDay: boolean) =>
  z
    .string()
    .regex(allowEndOfDay ? /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/ : /^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (00:00 to 23:59; 24:00 as an end)');

/** Whether Intl knows the IANA time zone (America/New_York); fixed offsets and abbreviations are not zones. */
function isTimeZone(zone: string): boolean {
  if (!zone.includes('/') && zone !== 'UTC') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

const window = z
  .strictObject({
    days: z
      .array(z.enum(weekdays))
      .min(1)
      .max(7)
      .transform((days) => [...new Set(days)]),
    start: clockTime(false),
    end: clockTime(true),
  })
  .refine((part) => minutesOf(part.end) > minutesOf(part.start), {
    message: 'end must be after start (a window over midnight is two windows)',
    path: ['end'],
    // Asked whatever the window is, null or a string included (already refused: not an object).
    when: (payload) => {
      const value = payload.value as { start?: unknown; end?: unknown } | null | undefined;
      return typeof value?.start === 'string' && typeof value.end === 'string' && /^\d\d:\d\d$/.test(value.start) && /^\d\d:\d\d$/.test(value.end);
    },
  });

/**
 * When a line item may serve, in the advertiser's local time: windows of [start, end) on the
 * given days, in an IANA time zone, so daylight saving time moves them with the local clock.
 */
export const daypartsSchema = z.strictObject({
  timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as America/New_York'),
  windows: z.array(window).min(1).max(50),
});
type Dayparts = z.output<typeof daypartsSchema>;

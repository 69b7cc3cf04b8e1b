/** Day of the week (0 = Monday) and minute of the day of an instant on a zone's local clock. */
export interface LocalTime {
  day: number;
  minute: number;
}

const DAY_INDEX: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };
const MINUTE_MS = 60_000;

interface CachedZone {
  format: Intl.DateTimeFormat;
  /** The local time holds until this instant (the next UTC minute: offsets change on minute boundaries). */
  validUntil: number;
  time: LocalTime;
}

const zones = new Map<string, CachedZone>();

/**
 * The local time in an IANA zone, through Intl (which knows each zone's daylight saving rules).
 * Formatting costs microseconds, so each zone's answer is kept until the next minute: a serve pays
 * for it at most once per zone and minute.
 */
export function localTime(zone: string, nowMs: number): LocalTime {
  let cached = zones.get(zone);
  if (cached === undefined) {
    const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    zones.set(zone, (cached = { format, validUntil: -Infinity, time: { day: 0, minute: 0 } }));
  }
  if (nowMs >= cached.validUntil || nowMs < cached.validUntil - MINUTE_MS) {
    let day = 0;
    let hour = 0;
    let minute = 0;
    for (const part of cached.format.formatToParts(nowMs)) {
      if (part.type === 'weekday') day = DAY_INDEX[part.value] ?? 0;
      else if (part.type === 'hour') hour = Number(part.value);
      else if (part.type === 'minute') minute = Number(part.value);
    }
    cached.time = { day, minute: hour * 60 + minute };
    cached.validUntil = nowMs - (nowMs % MINUTE_MS) + MINUTE_MS;
  }
  return cached.time;
}

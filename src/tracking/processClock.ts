import type { ServeHistory } from './serveHistory.js';

/**
 * The clock the serve ledger times impressions on, for the click delay rule (linkTracker.ts,
 * MIN_CLICK_DELAY_MS): ms since the epoch as the wall clock read when the process started, moved on
 * by the monotonic clock alone. A wall clock stepped back by N seconds (an NTP step, an operator's
 * `date -s`) no longer makes the clicks of the next N seconds look sooner after their impressions
 * than they were (try45 F1); where nobody steps the clock the two run together (NTP slews both alike).
 */
export function processClockMs(): number {
  // Whole ms: the ledger packs the time with two flags into one number (serveLedger.ts).
  return Math.floor(performance.timeOrigin + performance.now());
}

/**
 * A serve's history learned from another clock (ClickHouse: another instance's, or this instance's
 * own before a restart or a step), its impression time on the process clock: as long before now as
 * the wall clock now says it was. Where the two clocks disagree, the impression can come out later
 * than a click: linkTracker.ts judges that disagreement, not speed.
 */
export function onProcessClock(history: ServeHistory): ServeHistory {
  if (history.impressionAt === 0) return history;
  return { ...history, impressionAt: history.impressionAt - Date.now() + processClockMs() };
}

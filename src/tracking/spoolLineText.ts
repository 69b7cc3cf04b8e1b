import type { TrackedEvent } from './trackedEvent.js';

/**
 * The spool line of an event written as text, without JSON.stringify: the same bytes as
 * `JSON.stringify(row) + '\n'` whenever no string needs escaping, which is every pixel and click in
 * practice (ids, enums, addresses, ordinary user agents). Every accepted event costs one line, and
 * the generic stringify with the time's toISOString was 3 us of a pixel's 50 (unit test: equal to
 * the generic line, escapes and odd times included). Undefined when a value needs the generic
 * encoder: a character JSON escapes (quote, backslash, control) or any surrogate, a number that is
 * not finite, a time outside 1970-9999 or not whole milliseconds.
 */
export function plainSpoolLine(e: TrackedEvent): string | undefined {
  const texts =
    e.event_id + e.type + e.source + e.serve_id + e.campaign_id + e.line_item_id + e.creative_id + e.placement_id +
    e.publisher_id + e.price_model + e.click_id + e.ip + e.ip_class + e.ip_network + e.user_agent + e.ivt + e.country +
    e.user_key + e.fetch_dest + e.fetch_mode + e.fetch_site;
  if (NEEDS_ESCAPING.test(texts) || !Number.isFinite(e.cost_nanos) || !Number.isFinite(e.revenue_nanos)) return undefined;
  const time = plainSpoolTime(e.event_time);
  if (time === undefined) return undefined;
  // In SPOOL_COLUMNS order.
  return `["${e.event_id}","${time}","${e.type}","${e.source}","${e.serve_id}","${e.campaign_id}","${e.line_item_id}","${e.creative_id}","${e.placement_id}","${e.publisher_id}","${e.price_model}",${e.cost_nanos},${e.revenue_nanos},"${e.click_id}","${e.ip}","${e.ip_class}","${e.ip_network}","${e.user_agent}","${e.ivt}","${e.country}","${e.user_key}","${e.fetch_dest}","${e.fetch_mode}","${e.fetch_site}"]\n`;
}

/** What JSON.stringify writes differently from the text itself; surrogates, even paired ones, go the generic way. */
const NEEDS_ESCAPING = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** Year 10000: toISOString writes six-digit years from there on. */
const YEAR_10000_MS = 253_402_300_800_000;

/** The second of the last time written and its text up to the milliseconds: a turn's events share it. */
let cachedSecond = -1;
let cachedSecondText = '';

/**
 * `YYYY-MM-DD hh:mm:ss.sss` (UTC), as `new Date(ms).toISOString()` with the T and Z taken out; the
 * date part is made once per second. Undefined outside the plain range (see plainSpoolLine).
 */
export function plainSpoolTime(ms: number): string | undefined {
  if (!Number.isInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return undefined;
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedSecondText = new Date(second * 1000).toISOString().slice(0, 20).replace('T', ' ');
    cachedSecond = second;
  }
  const milliseconds = ms - second * 1000;
  return cachedSecondText + (milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : '') + milliseconds;
}

import type { TrackedEvent } from './trackedEvent.js';

/**
 * The spool line of an event written as text, without JSON.stringify: the same bytes as
 * `JSON.stringify(row) + '\n'` whenever no string needs escaping, which is every pixel and click in
 * practice (ids, enums, addresses, ordinary user agents). Every accepted event costs one line, and
 * the generic stringify with the time's toISOString was 3 us of a pixel's 50 (unit test: equal to
 * the generic line, escapes and odd times included). Undefined when a value needs the generic
 * encoder: a character JSON escapes (quote, backslash, control) or any surrogate, a number that is
 * not finite, a time outside 1970-9999 or not whole milliseconds.
 *
 * The line is checked once it is written out, by one pass of PLAIN_LINE over it: the line is made
 * flat for the write anyway, where checking the values first cost a second copy of them all.
 */
export function plainSpoolLine(e: TrackedEvent): string | undefined {
  if (!Number.isFinite(e.cost_nanos) || !Number.isFinite(e.revenue_nanos) || !Number.isFinite(e.price_nanos)) return undefined;
  const time = plainSpoolTime(e.event_time);
  if (time === undefined) return undefined;
  // In SPOOL_COLUMNS order.
  const line = `["${e.event_id}","${time}","${e.type}","${e.source}","${e.serve_id}","${e.campaign_id}","${e.line_item_id}","${e.creative_id}","${e.placement_id}","${e.publisher_id}","${e.price_model}",${e.cost_nanos},${e.revenue_nanos},"${e.click_id}","${e.ip}","${e.ip_class}","${e.ip_network}","${e.user_agent}","${e.ivt}","${e.country}","${e.user_key}","${e.fetch_dest}","${e.fetch_mode}","${e.fetch_site}",${e.price_nanos},"${e.unbilled}"]\n`;
  return PLAIN_LINE.test(line) ? line : undefined;
}

/**
 * A line of plainSpoolLine's shape whose every text holds nothing JSON.stringify writes differently
 * (a quote, backslash, control character, or any surrogate, even a paired one): each text is
 * delimited by the quotes around it, so a quote inside one breaks the match.
 */
const PLAIN_TEXT = '"[^"\\\\\\u0000-\\u001f\\ud800-\\udfff]*"';
const PLAIN_NUMBER = '[^,"]*';
const PLAIN_LINE = new RegExp(
  `^\\[${[
    ...Array<string>(11).fill(PLAIN_TEXT), // event_id ... price_model, the time among them
    PLAIN_NUMBER, // cost_nanos
    PLAIN_NUMBER, // revenue_nanos
    ...Array<string>(11).fill(PLAIN_TEXT), // click_id ... fetch_site
    PLAIN_NUMBER, // price_nanos
    PLAIN_TEXT, // unbilled
  ].join(',')}\\]\\n$`,
);

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

/** A timestamptz column as SQL text the way Date.prototype.toJSON writes it (milliseconds, truncated like the Date a row holds). */
export function jsonTimeSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * A timestamptz as Postgres writes it in text (ISO DateStyle): date, time with up to 6 decimals,
 * the offset (hours, and minutes and seconds when not whole), " BC" for years before 1.
 */
const TIMESTAMPTZ_TEXT = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

/**
 * The instant a timestamptz names, read the way node-postgres reads it on a Postgres server, so both
 * backends answer the same. PGlite's own parser hands the text to new Date(), whose legacy parser
 * takes years 0001-0099 for 19xx/20xx ('0001-06-15 00:00:00+00' became 2015-01-06). Infinity and
 * -Infinity for 'infinity' and '-infinity', as both drivers give. Milliseconds are truncated, as a
 * Date holds no finer.
 */
export function parseTimestamptz(text: string): Date | number {
  if (isPlainUtc(text)) {
    // The first three of up to six decimals, from index 20 to the offset's "+00".
    const decimals = Math.min(text.length - 23, 3);
    const milliseconds = decimals > 0 ? digitsAt(text, 20, 20 + decimals) * 10 ** (3 - decimals) : 0;
    return new Date(Date.UTC(digitsAt(text, 0, 4), digitsAt(text, 5, 7) - 1, digitsAt(text, 8, 10), digitsAt(text, 11, 13), digitsAt(text, 14, 16), digitsAt(text, 17, 19), milliseconds));
  }
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const parts = TIMESTAMPTZ_TEXT.exec(text);
  if (!parts) throw new Error(`not a timestamptz in ISO format: ${text}`);
  const [, year, month, day, hours, minutes, seconds, fraction = '', sign, offsetHours, offsetMinutes = '0', offsetSeconds = '0', bc] = parts;
  const fullYear = bc ? 1 - Number(year) : Number(year);
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which also maps years 0-99 to 1900-1999.
  date.setUTCFullYear(fullYear, Number(month) - 1, Number(day));
  const instant = date.setUTCHours(Number(hours), Number(minutes), Number(seconds), milliseconds);
  const offsetMs = (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * 1000;
  return new Date(sign === '-' ? instant + offsetMs : instant - offsetMs);
}

/**
 * What a UTC session writes for the years 1000-9999, "YYYY-MM-DD HH:MM:SS[.ffffff]+00": read by
 * position, faster than new Date() was (the ad index reads every active line item's flight).
 */
function isPlainUtc(text: string): boolean {
  const length = text.length;
  return (
    (length === 22 || (length >= 24 && length <= 29 && text.charCodeAt(19) === 46)) &&
    text.charCodeAt(0) !== 48 &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(length - 3) === 43 &&
    text.charCodeAt(length - 2) === 48 &&
    text.charCodeAt(length - 1) === 48
  );
}

/** The decimal number the ASCII digits text[start, end) spell. */
function digitsAt(text: string, start: number, end: number): number {
  let value = 0;
  for (let index = start; index < end; index++) value = value * 10 + text.charCodeAt(index) - 48;
  return value;
}

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
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const parts = TIMESTAMPTZ_TEXT.exec(text);
  if (!parts) throw new Error(`not a timestamptz in ISO format: ${text}`);
  const [, year, month, day, hours, minutes, seconds, fraction = '', sign, offsetHours, offsetMinutes = '0', offsetSeconds = '0', bc] = parts;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which also maps years 0-99 to 1900-1999.
  date.setUTCFullYear(bc ? 1 - Number(year) : Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hours), Number(minutes), Number(seconds), Number(fraction.padEnd(3, '0').slice(0, 3)));
  const offsetMs = (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * 1000;
  return new Date(date.getTime() - (sign === '-' ? -offsetMs : offsetMs));
}

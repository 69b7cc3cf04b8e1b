import type { z } from 'zod';
import { rfc3339Timestamp } from './fieldSchemas.js';

/** The first and last instants a flight bound may name (UTC years 1970 to 9999). */
const FLIGHT_EARLIEST = '1970-01-01T00:00:00.000Z';
const FLIGHT_LATEST = '9999-12-31T23:59:59.999Z';

/**
 * A flight bound: an RFC 3339 timestamp with its offset ("2026-12-01T00:00:00Z",
 * "2026-12-01T09:00:00+09:00"). A time without an offset would depend on the server's zone, so
 * it is refused. Kept as the instant it names, in UTC. Years outside 1970-9999 name no ad flight:
 * year 0000 does not exist in Postgres (a 500), and early years are where date handling differs
 * between libraries, so they are refused rather than stored (an offset may not carry it out either).
 */
export const flightTime = rfc3339Timestamp('must be an RFC 3339 timestamp with an offset, such as 2026-12-01T00:00:00Z')
  .transform((text) => new Date(text).toISOString())
  .refine((instant) => Date.parse(instant) >= Date.parse(FLIGHT_EARLIEST) && Date.parse(instant) <= Date.parse(FLIGHT_LATEST), `must be between ${FLIGHT_EARLIEST} and ${FLIGHT_LATEST}`);

interface Flight {
  starts_at?: string | null;
  ends_at?: string | null;
}

/** Whether a flight's end comes after its start (an open end, or start, always does). */
export function flightInOrder(flight: Flight): boolean {
  return !flight.starts_at || !flight.ends_at || Date.parse(flight.ends_at) > Date.parse(flight.starts_at);
}

export const FLIGHT_ORDER_MESSAGE = 'ends_at must be after starts_at';

/**
 * Adds the ends_at-after-starts_at check to an object schema holding both bounds. It also runs when
 * other fields failed (as long as both bounds parsed), so one 422 lists every offending field.
 */
export function withFlightOrder<Shape extends z.ZodType<Flight>>(schema: Shape) {
  return schema.refine(flightInOrder, {
    message: FLIGHT_ORDER_MESSAGE,
    path: ['ends_at'],
    when: (payload) => {
      const value = payload.value as Flight | undefined;
      return typeof value === 'object' && value !== null && boundParsed(value.starts_at) && boundParsed(value.ends_at);
    },
  });
}

function boundParsed(bound: unknown): boolean {
  return bound === undefined || bound === null || (typeof bound === 'string' && !Number.isNaN(Date.parse(bound)));
}

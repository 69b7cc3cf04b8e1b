import type { ClickHouseClient } from '@clickhouse/client';
import { aroundClientCalls } from './clickhouseCalls.js';

/**
 * ClickHouse could not be asked (connection refused or reset, no answer in time, the embedded
 * session closed) or cannot answer now (too busy, out of memory, a cluster's shards unreachable): the
 * same query may succeed when retried. The error handler answers it 503 `unavailable` with
 * Retry-After instead of 500, as it does for Postgres (storeUnavailable.ts). A query ClickHouse
 * answered with any other error is not this: it stays the 500 the contract gives a failed report.
 */
export class EventStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`ClickHouse is unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * ClickHouse's "not now" answers, by type name (the engine's errors carry their numeric code, as a
 * string, and this name, from a server and from embedded chdb alike): load, disk, and a cluster's
 * unreachable parts. Not TIMEOUT_EXCEEDED: every report sets its own max_execution_time, and the
 * same report would time out again, which is the contract's 500. MEMORY_LIMIT_EXCEEDED only for the
 * server's total (other queries' load); a query over its own limit fails the same way every time.
 */
const NOT_NOW_TYPES = new Set([
  'TOO_MANY_SIMULTANEOUS_QUERIES',
  'SOCKET_TIMEOUT',
  'NETWORK_ERROR',
  'NOT_ENOUGH_SPACE',
  'ALL_CONNECTION_TRIES_FAILED',
  'ALL_REPLICAS_ARE_STALE',
  'TABLE_IS_READ_ONLY',
  'KEEPER_EXCEPTION',
]);

/**
 * A failure of the connection, before the engine answered or while its answer was read: a system
 * error of the connection (ECONNREFUSED, ECONNRESET, ETIMEDOUT...; an answer cut midway is
 * ECONNRESET "aborted"), the client's request timeout or a hung-up socket, the embedded session
 * closed. Any other error without the engine's code is a bug of ours (a bad parameter, a misuse of
 * a result) and stays a 500 that says so in the log.
 */
const NEVER_ANSWERED_MESSAGE = /socket hang up|timeout error|is closed/i;

function isEventStoreUnavailable(error: unknown): boolean {
  if (error instanceof EventStoreUnavailableError) return true;
  const { code, type, message } = (error ?? {}) as { code?: unknown; type?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string' && /^\d+$/.test(code)) {
    return (typeof type === 'string' && NOT_NOW_TYPES.has(type)) || (type === 'MEMORY_LIMIT_EXCEEDED' && text.includes('(total)'));
  }
  return (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) || NEVER_ANSWERED_MESSAGE.test(text);
}

function sorted(error: unknown): unknown {
  return isEventStoreUnavailable(error) ? new EventStoreUnavailableError(error) : error;
}

/**
 * The client with its queries' failures sorted: one that is isEventStoreUnavailable rejects as
 * EventStoreUnavailableError (so every route that reads ClickHouse answers 503 when it is down,
 * without a catch of its own), anything else as it was. Both when the query is sent and while its
 * result is read (`json()`, `text()`: a server answers the status and headers first, and its
 * connection can drop, or the server stop, in the middle of the rows; the same sorting keeps a
 * TIMEOUT_EXCEEDED the server reports there a 500). Only `query`: inserts and commands keep their
 * errors, which the event pipeline sorts itself (src/tracking/insertErrors.ts).
 */
export function withUnavailableQueries(client: ClickHouseClient): ClickHouseClient {
  return aroundClientCalls(client, ['query'], (query) =>
    query().then(
      (result) => withSortedReading(result as object),
      (error: unknown) => {
        throw sorted(error);
      },
    ),
  );
}

/** A result whose reads reject sorted, as the query itself does. */
function withSortedReading<Result extends object>(result: Result): Result {
  return new Proxy(result, {
    get: (target, property, receiver) => {
      const value: unknown = Reflect.get(target, property, receiver);
      if ((property !== 'json' && property !== 'text') || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        (value as (...args: unknown[]) => Promise<unknown>).apply(target, args).catch((error: unknown) => {
          throw sorted(error);
        });
    },
  });
}

import type { ClickHouseClient } from '@clickhouse/client';

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
 * ClickHouse's own errors carry its numeric code (as a string) and its type name, from a server
 * and from embedded chdb alike; an error without one never got an answer from the engine. These
 * types are the engine's "not now" answers: load, memory, disk, and a cluster's unreachable parts.
 */
const NOT_NOW_TYPES = new Set([
  'TIMEOUT_EXCEEDED',
  'TOO_MANY_SIMULTANEOUS_QUERIES',
  'SOCKET_TIMEOUT',
  'NETWORK_ERROR',
  'MEMORY_LIMIT_EXCEEDED',
  'NOT_ENOUGH_SPACE',
  'ALL_CONNECTION_TRIES_FAILED',
  'ALL_REPLICAS_ARE_STALE',
  'TABLE_IS_READ_ONLY',
  'KEEPER_EXCEPTION',
]);

function isEventStoreUnavailable(error: unknown): boolean {
  if (error instanceof EventStoreUnavailableError) return true;
  const { code, type } = (error ?? {}) as { code?: unknown; type?: unknown };
  const answered = typeof code === 'string' && /^\d+$/.test(code);
  return !answered || (typeof type === 'string' && NOT_NOW_TYPES.has(type));
}

/**
 * The client with its queries' failures sorted: one that is isEventStoreUnavailable rejects as
 * EventStoreUnavailableError (so every route that reads ClickHouse answers 503 when it is down,
 * without a catch of its own), anything else as it was. Only `query`: inserts and commands keep
 * their errors, which the event pipeline sorts itself (src/tracking/insertErrors.ts).
 */
export function withUnavailableQueries(client: ClickHouseClient): ClickHouseClient {
  const query: ClickHouseClient['query'] = (params) =>
    client.query(params).catch((error: unknown) => {
      throw isEventStoreUnavailable(error) ? new EventStoreUnavailableError(error) : error;
    });
  return new Proxy(client, {
    get: (target, property, receiver) => (property === 'query' ? query : Reflect.get(target, property, receiver)),
  });
}

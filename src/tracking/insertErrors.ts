/**
 * What a failed ClickHouse insert means for the event pipeline. ClickHouse's own errors carry its
 * numeric code (as a string) and type name, on a server and on embedded chdb alike; errors without
 * one come from the connection (refused, reset, timed out).
 */
interface MaybeClickHouseError {
  code?: unknown;
  type?: unknown;
}

/** ClickHouse answered: the server is there, whatever it said. */
function isClickHouseAnswer(error: unknown): boolean {
  const { code } = (error ?? {}) as MaybeClickHouseError;
  return typeof code === 'string' && /^\d+$/.test(code);
}

/** The insert never reached ClickHouse or got no answer: every other insert would fail the same way now. */
export function isUnreachable(error: unknown): boolean {
  return !isClickHouseAnswer(error);
}

/**
 * ClickHouse could not read the rows (a torn or corrupt line, a value of the wrong type): the same
 * body fails every time, so retrying it as it is would block the pipeline for good.
 */
const UNPARSABLE = /^(CANNOT_PARSE_|CANNOT_READ_|INCORRECT_DATA$|TYPE_MISMATCH$|UNKNOWN_ELEMENT_OF_ENUM$|ATTEMPT_TO_READ_AFTER_EOF$|CANNOT_CONVERT_TYPE$|TOO_LARGE_STRING_SIZE$|CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN$|INCORRECT_NUMBER_OF_COLUMNS$|ILLEGAL_COLUMN$)/;

export function isUnparsableInsert(error: unknown): boolean {
  const { type } = (error ?? {}) as MaybeClickHouseError;
  return isClickHouseAnswer(error) && typeof type === 'string' && UNPARSABLE.test(type);
}

/**
 * ClickHouse refused the insert for what holds now, not for its rows: its disk (a full one, or
 * ENOSPC in a write), its load, a replica's Keeper, its users and grants (a rotated password), a
 * table being changed or dropped by a migration of another instance or an operator's ALTER, a query
 * cancelled (a server shutting down, KILL QUERY), quotas. The same insert can be taken later as it is.
 */
const REFUSED_FOR_NOW = new Set([
  'NOT_ENOUGH_SPACE',
  'TOO_MANY_PARTS',
  'TOO_MANY_SIMULTANEOUS_QUERIES',
  'MEMORY_LIMIT_EXCEEDED',
  'CANNOT_ALLOCATE_MEMORY',
  'TIMEOUT_EXCEEDED',
  'CANNOT_SCHEDULE_TASK',
  'TABLE_IS_READ_ONLY',
  'READONLY',
  'KEEPER_EXCEPTION',
  'NO_ZOOKEEPER',
  'UNKNOWN_STATUS_OF_INSERT',
  'NETWORK_ERROR',
  'SOCKET_TIMEOUT',
  'ACCESS_DENIED',
  'AUTHENTICATION_FAILED',
  'REQUIRED_PASSWORD',
  'UNKNOWN_TABLE',
  'TABLE_IS_DROPPED',
  'DEADLOCK_AVOIDED',
  'CANNOT_ASSIGN_ALTER',
  'QUERY_WAS_CANCELLED',
  'ABORTED',
  'QUOTA_EXCEEDED',
]);

export function isRefusedForNow(error: unknown): boolean {
  if (isUnreachable(error)) return true;
  const { type, message } = error as MaybeClickHouseError & { message?: unknown };
  return (typeof type === 'string' && REFUSED_FOR_NOW.has(type)) || (typeof message === 'string' && /No space left on device/i.test(message));
}

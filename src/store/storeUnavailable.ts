/**
 * Postgres could not be reached, dropped the connection or stopped answering (server stopped,
 * restarting, frozen, network gone, pool exhausted by dead connections), or cannot take the
 * request now (a full disk, out of memory, its files turned read-only or failing): the request may
 * succeed when retried (embedded, after the operator's fix and a restart). The error
 * handler answers it 503 `unavailable` with Retry-After instead of 500.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`Postgres is unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/**
 * SQLSTATEs of a server going away: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
 * cannot_connect_now; and of one that cannot take this now (class 53, insufficient resources):
 * 53000 insufficient_resources, 53100 disk_full (a full disk, under a server or embedded PGlite),
 * 53200 out_of_memory, 53300 too_many_connections. Not 53400 configuration_limit_exceeded: the same
 * request would hit the same limit again. And 55P03 lock_not_available: a lock another session held
 * past the pool's lock_timeout (POSTGRES_LOCK_WAIT_MS). And 25006 read_only_sql_transaction: a server
 * that takes only reads now (the old primary after a failover, a standby the address now points at)
 * until the address points at the new primary again.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53000', '53100', '53200', '53300', '55P03', '25006']);
/**
 * What pg itself says when a connection dies or cannot be made in time, or when a query got no
 * answer within its bound (POSTGRES_QUERY_TIMEOUT_MS: a server that stopped answering, postgres.ts).
 */
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused|Query read timeout/i;

/**
 * Postgres's words when its own files cannot be written and will not be until an operator acts: a
 * data directory the kernel turned read-only (ext4 `errors=remount-ro` after a disk error), a
 * failing disk. Postgres files EROFS under 42501 insufficient_privilege (errcode_for_file_access),
 * the SQLSTATE of a missing GRANT too, so the message tells them apart: PGlite answers a statement on
 * a read-only data directory "could not extend file "base/5/16536": Read-only file system" or "could
 * not open file "base/5/16384_fsm": Read-only file system" (ext4 turned read-only by a disk error:
 * test/integration/readOnlyDataDir.test.ts). SQLSTATE 58030 io_error is EIO's own. Not a full disk (53100 above,
 * also "could not extend file"): that one heals when space is freed.
 */
const STORAGE_FAULT_MESSAGES = /Read-only file system|Input\/output error/i;
const STORAGE_FAULT_SQLSTATES = new Set(['58030']);

/**
 * The store's own files cannot take a write (see STORAGE_FAULT_MESSAGES). This does not heal while
 * the process runs (the kernel keeps the file system read-only until it is repaired and remounted),
 * so the embedded store takes no statement after the first one that met it (postgres.ts).
 */
export function isStorageFault(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && STORAGE_FAULT_SQLSTATES.has(code)) return true;
  return typeof message === 'string' && STORAGE_FAULT_MESSAGES.test(message);
}

function isConnectionFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError) return error.errors.some(isConnectionFailure);
  if (isStorageFault(error)) return true;
  return typeof message === 'string' && CONNECTION_MESSAGES.test(message);
}

/** Rethrows a connection failure as StoreUnavailableError; anything else (a constraint, bad SQL) as it is. */
export function rethrowUnavailable(error: unknown): never {
  throw isConnectionFailure(error) ? new StoreUnavailableError(error) : error;
}


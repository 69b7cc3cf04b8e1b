import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A caller's own x-request-id when it is a plain token (letters, digits, _ and -, at most 64), or a new UUID. */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
}

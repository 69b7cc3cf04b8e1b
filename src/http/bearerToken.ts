import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

/** The token of an `Authorization: Bearer <token>` header; 401 auth_missing when there is none. */
export function bearerToken(request: FastifyRequest): string {
  const token = bearerTokenIn(request.headers.authorization);
  if (token === undefined) throw new ApiError('auth_missing', 'send a token in the Authorization: Bearer header');
  return token;
}

/** The token of an Authorization header's value, when it is `Bearer <token>`. */
export function bearerTokenIn(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] || undefined;
}

/** Compares secrets in constant time, so response timing does not reveal how much of a guess was right. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

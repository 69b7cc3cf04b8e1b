import type { onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from './errors.js';
import { bearerToken, secretsEqual } from './bearerToken.js';

/**
 * Operators' routes: `Authorization: Bearer <ADMIN_TOKEN>`. An onRequest hook, so a caller without the
 * token gets 401 before any body is read or parsed.
 */
export function requireAdminToken(adminToken: string): onRequestAsyncHookHandler {
  return async (request) => {
    if (!secretsEqual(bearerToken(request), adminToken)) throw new ApiError('auth_invalid', 'admin token is invalid');
  };
}

import type { preHandlerAsyncHookHandler } from 'fastify';
import { ApiError } from './errors.js';
import { bearerToken, secretsEqual } from './bearerToken.js';

/** Operators' routes: `Authorization: Bearer <ADMIN_TOKEN>`. */
export function requireAdminToken(adminToken: string): preHandlerAsyncHookHandler {
  return async (request) => {
    if (!secretsEqual(bearerToken(request), adminToken)) throw new ApiError('auth_invalid', 'admin token is invalid');
  };
}

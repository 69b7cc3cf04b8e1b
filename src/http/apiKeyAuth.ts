import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { SqlExecutor } from '../store/postgres.js';
import { ApiError } from './errors.js';
import { hashSecret } from './secretHash.js';
import { apiKeyLookup } from './apiKeyLookup.js';

export const permissions = ['campaigns', 'reporting'] as const;
export type Permission = (typeof permissions)[number];

/** Who is calling a management route: the organization the key belongs to, and what the key may do. */
export interface Advertiser {
  organizationId: string;
  apiKeyId: string;
  permissions: Permission[];
}

declare module 'fastify' {
  interface FastifyRequest {
    advertiser?: Advertiser;
  }
}

/**
 * An onRequest hook for management routes: x-api-key must name a live key (401 auth_missing /
 * auth_invalid) that carries at least one of `anyOf` (403 forbidden). Looked up on every request
 * (apiKeyLookup) so that a revoked key stops working at once, on every instance; checked before the body is read,
 * so an unauthenticated caller neither holds a connection with a slow body nor learns how it parses.
 */
export function requireApiKey(db: SqlExecutor, anyOf: Permission[]): onRequestAsyncHookHandler {
  const lookup = apiKeyLookup(db);
  return async (request) => {
    const key = request.headers['x-api-key'];
    if (key === undefined || key === '') throw new ApiError('auth_missing', 'send an API key in the x-api-key header');
    if (typeof key !== 'string') throw new ApiError('auth_invalid', 'API key is invalid');
    const found = await lookup(hashSecret(key));
    if (!found) throw new ApiError('auth_invalid', 'API key is invalid');
    if (!anyOf.some((permission) => found.permissions.includes(permission))) {
      throw new ApiError('forbidden', `this API key lacks the ${anyOf.join(' or ')} permission`);
    }
    request.advertiser = { organizationId: found.organization_id, apiKeyId: found.id, permissions: found.permissions };
  };
}

/** The caller of a route guarded by requireApiKey. */
export function advertiserOf(request: FastifyRequest): Advertiser {
  if (!request.advertiser) throw new Error('route is missing its requireApiKey hook');
  return request.advertiser;
}

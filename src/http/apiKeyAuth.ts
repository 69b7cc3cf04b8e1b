import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { SqlExecutor } from '../store/postgres.js';
import { ApiError } from './errors.js';
import { hashSecret } from './secretHash.js';
import { notifiedCache } from '../store/notifiedCache.js';

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

interface ApiKeyRow {
  id: string;
  organization_id: string;
  permissions: Permission[];
}

/** Every committed write to api_keys notifies this channel (migrations/0012). */
const API_KEYS_CHANNEL = 'api_keys';
const lookups = new WeakMap<SqlExecutor, (keyHash: string) => Promise<ApiKeyRow | undefined>>();

/**
 * The live key with a hash. On embedded PGlite the keys already found are remembered until any
 * write to api_keys (notifiedCache): a management call saves its key query, about 0.4 ms of the
 * single PGlite connection, and a revoked key still fails at once. On a server, one query per
 * request. One lookup per store, shared by every route.
 */
function apiKeyLookup(db: SqlExecutor): (keyHash: string) => Promise<ApiKeyRow | undefined> {
  let lookup = lookups.get(db);
  if (!lookup) {
    lookup = notifiedCache(db, API_KEYS_CHANNEL, 10_000, async (keyHash) => {
      const { rows } = await db.query<ApiKeyRow>(
        'SELECT id, organization_id, permissions FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
        [keyHash],
      );
      return rows[0];
    });
    lookups.set(db, lookup);
  }
  return lookup;
}

/**
 * An onRequest hook for management routes: x-api-key must name a live key (401 auth_missing /
 * auth_invalid) that carries at least one of `anyOf` (403 forbidden). Looked up on every request
 * (apiKeyLookup) so that a revoked key stops working at once, on every instance; checked before
 * the body is read, so an unauthenticated caller neither holds a connection with a slow body nor
 * learns how it parses.
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

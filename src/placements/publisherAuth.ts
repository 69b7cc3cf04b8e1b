import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { SqlExecutor } from '../store/postgres.js';
import { ApiError } from '../http/errors.js';
import { bearerToken } from '../http/bearerToken.js';
import { findPublisherByToken } from './publisherRepository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The publisher whose bearer token the request carries (serve and publisher routes). */
    publisherId: string | null;
  }
}

/**
 * The publisher routes' onRequest hook (before the body is read): a live publisher token (401 auth_missing / auth_invalid),
 * looked up in Postgres so a revoked token stops at once. /v1/serve checks tokens against the ad
 * index instead, to stay off the database.
 */
export function requirePublisherToken(db: SqlExecutor): onRequestAsyncHookHandler {
  return async (request) => {
    const publisherId = await findPublisherByToken(db, bearerToken(request));
    if (!publisherId) throw new ApiError('auth_invalid', 'publisher token is invalid');
    request.publisherId = publisherId;
  };
}

export function publisherOf(request: FastifyRequest): string {
  if (!request.publisherId) throw new Error('route is missing its publisher token check');
  return request.publisherId;
}

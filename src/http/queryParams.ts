import type { FastifyInstance, preParsingHookHandler } from 'fastify';
import { z } from 'zod';
import { ApiError, zodDetails } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What a /v1 route does with its query string: `parsed`, its handler parses it with its own
     * schema (parseQuery); `any`, it takes parameters it does not read (tracking links, the serve).
     * Absent, it takes none (refuseUnreadQueries).
     */
    query?: 'parsed' | 'any';
  }
}

declare const strictQuery: unique symbol;

/**
 * A whole-number query parameter from `min` to `max` (`limit`, `offset`, `hours`): the query string
 * holds text, so digits only; `0x10`, `1e2` or `-1` is 400 "must be a whole number".
 */
export function boundedInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,10}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** A query schema built by `queryParams`: parseQuery takes no other, so no route can forget the rule. */
export type QuerySchema = z.ZodObject<z.core.$ZodShape, z.core.$strict> & { readonly [strictQuery]: true };

/**
 * The schema of a JSON route's query string: a strict object, so that a misspelt parameter
 * (`date_form`, `stauts`) is refused like an unknown body field, never ignored while the route
 * answers over a default it was not asked for. Tracking links do not come here: publishers and
 * link wrappers append their own parameters (utm_*) to them.
 */
export function queryParams<Shape extends z.core.$ZodShape>(shape: Shape) {
  return z.strictObject(shape) as z.ZodObject<Shape, z.core.$strict> & { readonly [strictQuery]: true };
}

/** The query of a route that reads none. */
const noQueryParams = queryParams({});

/** The details of a query string's zod error: every offending parameter, an unknown one named as such. */
export function queryDetails(error: z.ZodError) {
  return zodDetails(error, 'unknown parameter');
}

/** Parses a query string; anything unknown, out of bounds or malformed is 400 bad_request naming each parameter. */
export function parseQuery<Schema extends QuerySchema>(schema: Schema, query: unknown): z.output<Schema> {
  const result = schema.safeParse(query ?? {});
  if (!result.success) throw new ApiError('bad_request', 'query parameters are invalid', queryDetails(result.error));
  return result.data;
}

/**
 * The one rule for the query strings of the JSON routes (/v1/): a route that does not declare
 * `config.query` takes no parameter, so `?format=csv` on one campaign, `?limit=1` on a list returned
 * whole or `?dry_run=1` on a write is 400 "unknown parameter" before its body is read or anything
 * changes, never ignored while the route answers as if it had not been sent. Registered before the
 * routes (an onRoute hook sees only routes added after it).
 */
export function refuseUnreadQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/') || route.config?.query !== undefined) return;
    const hooks = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing];
    route.preParsing = [...hooks, refuseAnyQuery];
  });
}

const refuseAnyQuery: preParsingHookHandler = (request, _reply, payload, done) => {
  if (!request.url.includes('?')) {
    done(null, payload);
    return;
  }
  try {
    parseQuery(noQueryParams, request.query);
  } catch (error) {
    done(error as Error);
    return;
  }
  done(null, payload);
};

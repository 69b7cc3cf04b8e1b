import { z } from 'zod';
import { ApiError, zodDetails } from './errors.js';

declare const strictQuery: unique symbol;

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

/**
 * The query of a list returned whole (a campaign's line items, a publisher's placements): it takes
 * no parameter, so `limit=1` or `status=draft` is refused rather than answered with every row.
 */
export const noQueryParams = queryParams({});

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

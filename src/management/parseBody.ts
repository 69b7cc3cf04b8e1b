import type { z } from 'zod';
import { ApiError, type ErrorDetail } from '../http/errors.js';

/**
 * parseInput for the management API's strict bodies: an unknown field is a 422 like any other
 * offending field, reported at its own path (`line_item.budget.dialy`) rather than at its parent.
 * A missing body is treated as `{}`, so that its required fields are listed.
 */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join('.'), message: 'unknown field' }))
      : [{ path: issue.path.map(String).join('.'), message: issue.message }],
  );
  throw new ApiError('validation_error', 'request is invalid', details);
}

import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { StoreUnavailableError } from '../store/storeUnavailable.js';
import { EventStoreUnavailableError } from '../store/clickhouseUnavailable.js';

/** The codes of the spec's error table, plus the service-wide ones of the design. */
export const errorStatus = {
  bad_request: 400,
  auth_missing: 401,
  auth_invalid: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** Thrown anywhere in a request; the error handler turns it into the envelope with its status. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[]) {
  return { error: details ? { code, message, details } : { code, message } };
}

/**
 * Every offending field of a zod error, as `{path, message}` with dotted paths
 * (`line_item.budget.daily`). An unknown field of a strict object is reported at its own path
 * (`line_item.budget.dialy`), not at its parent's, with `unknownKey` as its message.
 */
export function zodDetails(error: z.ZodError, unknownKey = 'unknown field'): ErrorDetail[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join('.'), message: unknownKey }))
      : [{ path: issue.path.map(String).join('.'), message: issue.message }],
  );
}

/**
 * Parses input with a zod schema; a failure is 422 validation_error listing every offending field.
 * A missing query or body counts as `{}`, so that its required fields are listed (the serve,
 * conversion and integration-review bodies: openapi.yaml's ValidationError); JSON `null` is not
 * `{}` (since try35 L1) and fails like any other non-object, as one detail at path "".
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  // Only no body at all is an empty object: JSON `null`, a string or an array is a confused client
  // (422), never a request to act on.
  const result = schema.safeParse(input === undefined ? {} : input);
  if (!result.success) throw new ApiError('validation_error', 'request is invalid', zodDetails(result.error));
  return result.data;
}

const noFields = z.strictObject({});

/**
 * The body of a POST that takes none (issue a token): no body or `{}`;
 * anything else (`null`, `"x"`, `[1,2]`, a field) is 422 and the route does nothing.
 */
export function parseNoBody(body: unknown): void {
  parseInput(noFields, body);
}

/**
 * Parses the body of a management or admin route whose body is required (openapi.yaml
 * `requestBody.required`): none at all, or JSON `null`, is 422 before the schema is asked, so that
 * a PUT without a body never replaces what it names with nothing (a targeting whose every field is
 * optional would otherwise parse as `{}`: no targeting at all). The serve, conversion and
 * integration-review bodies have required fields, so their schemas already refuse `{}`.
 */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  if (body === undefined || body === null) {
    throw new ApiError('validation_error', 'request is invalid', [{ path: '', message: 'a JSON object body is required' }]);
  }
  return parseInput(schema, body);
}

/**
 * What a 503 unavailable asks the client to wait (spool space, the event buffer and a store come
 * back in seconds), and a 429 rate_limited (a download of the same key finishing).
 */
export const RETRY_AFTER_SECONDS = '5';

/** An error's answer: its status and envelope. */
interface ErrorResponse {
  status: number;
  body: ReturnType<typeof errorBody>;
}

/**
 * The one place errors become responses, for fastify's error handler and the routes answered before
 * fastify alike: ApiError as given; a store that cannot be reached 503; fastify's own errors mapped
 * to the spec's codes (malformed JSON 400, body too large 413); anything else 500 with no internals.
 * A 503 goes out with Retry-After (RETRY_AFTER_SECONDS). `log` is the request's logger, asked only
 * when something is logged.
 */
export function errorResponse(error: unknown, log: () => FastifyBaseLogger): ErrorResponse {
  if (error instanceof ApiError) return { status: error.status, body: errorBody(error.code, error.message, error.details) };
  if (error instanceof StoreUnavailableError) {
    log().warn({ err: error.cause }, 'Postgres is unavailable; answered 503');
    return { status: 503, body: errorBody('unavailable', 'the database is unavailable; retry later') };
  }
  if (error instanceof EventStoreUnavailableError) {
    log().warn({ err: error.cause }, 'ClickHouse is unavailable; answered 503');
    return { status: 503, body: errorBody('unavailable', 'the event store is unavailable; retry later') };
  }
  if (error instanceof z.ZodError) return { status: 422, body: errorBody('validation_error', 'request is invalid', zodDetails(error)) };
  const fastifyError: Partial<FastifyError> = typeof error === 'object' && error !== null ? error : {};
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, body: errorBody('payload_too_large', 'request body is too large') };
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return { status: 415, body: errorBody('unsupported_media_type', 'send bodies as application/json') };
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fastifyError.statusCode === 400 || error instanceof SyntaxError) {
    return { status: 400, body: errorBody('bad_request', 'request body is not valid JSON') };
  }
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return { status: 400, body: errorBody('bad_request', String(fastifyError.message)) };
  }
  log().error({ err: error }, 'request failed');
  return { status: 500, body: errorBody('internal_error', 'internal error') };
}

/** Turns every error of the app's routes into its response (errorResponse); answers 404 for a route that does not exist. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    // Answered before the body was read (auth failed in onRequest, say): close the connection rather
    // than wait for the rest of a body nobody will look at, however slowly it comes.
    if (!request.raw.complete) reply.header('connection', 'close');
    const { status, body } = errorResponse(error, () => request.log);
    if (status === 503 || status === 429) reply.header('retry-after', RETRY_AFTER_SECONDS);
    return reply.code(status).send(body);
  });

  const answerNotFound = async (request: FastifyRequest, reply: FastifyReply) => {
    // Nobody reads the rest of the body: the connection goes with the answer, as in the error handler.
    if (!request.raw.complete) reply.header('connection', 'close');
    return reply.code(404).send(errorBody('not_found', `no route for ${request.method} ${request.url.split('?')[0]}`));
  };
  // Answered in onRequest, before fastify reads and parses a body no route will look at: a POST to
  // an unknown path with malformed JSON, or a method no route has (QUERY, with or without a body),
  // is 404, not 400. fastify runs every lifecycle hook of these options (lib/four-oh-four.js)
  // though its types name only preValidation and preHandler, hence the empty preHandler list.
  const notFoundHooks = { onRequest: answerNotFound, preHandler: [] };
  app.setNotFoundHandler(notFoundHooks, answerNotFound);
}

/** Path ids that cannot exist (not a UUID, bad characters) answer 404 not_found, like ids that do not exist. */
export function parsePathParams<Schema extends z.ZodType>(schema: Schema, params: unknown, what: string): z.output<Schema> {
  const result = schema.safeParse(params);
  if (!result.success) throw new ApiError('not_found', `${what} not found`);
  return result.data;
}

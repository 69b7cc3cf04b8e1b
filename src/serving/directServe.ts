import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { writeJsonAnswer, type DirectRoute } from '../http/answerBeforeFastify.js';
import { bearerTokenIn } from '../http/bearerToken.js';
import { atEndOfTurn } from '../http/endOfTurn.js';
import { errorResponse } from '../http/errors.js';
import type { JsonBodyReader } from '../http/jsonBody.js';
import { requestIdOf } from '../http/requestId.js';

export const SERVE_PATH = '/v1/serve';
/** The content types taken here; any other (charset=latin1, text/plain, none) goes to fastify's route. */
const PLAIN_JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);

export interface DirectServeOptions {
  bodyLimit: number;
  readJsonBody: JsonBodyReader;
  /** The publisher a bearer token belongs to, or undefined. */
  publisherOf(token: string): string | undefined;
  /** The serve's answer, as the fastify route computes it: an object, or JSON already written. */
  answer(input: unknown, publisherId: string): object | string;
  /** Records the answer in the request-duration histogram, as the app's onResponse hook does. */
  observe(statusCode: number, seconds: number): void;
  /** False while requests are logged (fastify logs each). */
  taking(): boolean;
  log: FastifyBaseLogger;
}

/**
 * POST /v1/serve answered before fastify routes it, for the requests of a publisher's backend in
 * the usual form: a known bearer token, a JSON body of a declared length within the limit. It runs
 * exactly what the fastify route runs (the same body reader, schema, selection and answer) and
 * answers the same status, body and headers (content-type, content-length, x-request-id), with the
 * same request-duration observation; only the framework's work goes (routing, request and reply
 * objects, hooks, the body's content-type lookup, serialization): 52 -> 44 us of main-thread CPU a
 * serve under load (bench/README.md, "Serve: session 27"). Everything else, a missing or unknown token,
 * another content type, a chunked or too large body, goes to the fastify route untouched, which
 * answers it as the contract says; so does every request while the app logs requests.
 */
export function directServe(options: DirectServeOptions): DirectRoute {
  return (request, response) => {
    let publisherId: string | undefined;
    try {
      publisherId = publisherTaken(request, options);
    } catch (error) {
      // Nothing is read or answered yet: the route answers it (a 500 in the envelope, if it fails there too).
      options.log.error({ err: error }, 'direct serve check failed; left to the fastify route');
      return false;
    }
    if (publisherId === undefined) return false;
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    const contentType = request.headers['content-type'];
    readBody(request, (bytes) => {
      let payload: string;
      try {
        const answer = options.answer(options.readJsonBody(contentType, bytes), publisherId);
        payload = typeof answer === 'string' ? answer : JSON.stringify(answer);
      } catch (error) {
        // Errors are answered at once, as the fastify route's error handler does.
        const { status, body } = errorResponse(error, () => options.log.child({ reqId: requestId }));
        send(request, response, requestId, status, JSON.stringify(body), started, options);
        return;
      }
      // Written together with the other answers of this event-loop turn: see atEndOfTurn.
      atEndOfTurn(() => send(request, response, requestId, 200, payload, started, options));
    });
    return true;
  };
}

/** The publisher of a serve this handler takes, or undefined for a request it leaves to fastify. */
function publisherTaken(request: IncomingMessage, options: DirectServeOptions): string | undefined {
  if (request.method !== 'POST' || request.url !== SERVE_PATH || !options.taking()) return undefined;
  const headers = request.headers;
  const contentType = headers['content-type'];
  if (contentType === undefined || !PLAIN_JSON_TYPES.has(contentType.toLowerCase())) return undefined;
  const declared = headers['content-length'] === undefined ? NaN : Number(headers['content-length']);
  if (!Number.isSafeInteger(declared) || declared > options.bodyLimit || headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return undefined;
  const token = bearerTokenIn(headers.authorization);
  return token === undefined ? undefined : options.publisherOf(token);
}

/** The whole body, then `done`; nothing when the request is cut short (nobody would read the answer). */
function readBody(request: IncomingMessage, done: (bytes: Buffer) => void): void {
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  request.on('data', (chunk: Buffer) => {
    if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  });
  // A connection cut mid-body never ends the request; node emits its 'error' only to a listener.
  request.on('end', () => done(more === undefined ? (first ?? Buffer.alloc(0)) : Buffer.concat(more)));
}

function send(request: IncomingMessage, response: ServerResponse, requestId: string, status: number, payload: string, started: number, options: DirectServeOptions): void {
  try {
    writeJsonAnswer(request, response, status, payload, requestId);
  } catch (error) {
    // Never an exception out of a stream callback (it would end the process): this connection goes instead.
    options.log.child({ reqId: requestId }).error({ err: error }, 'writing a serve answer failed');
    response.destroy();
    return;
  }
  options.observe(status, (performance.now() - started) / 1000);
}

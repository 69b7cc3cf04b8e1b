import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { RETRY_AFTER_SECONDS } from './errors.js';

/** Answers a request itself and says so (true), or leaves it untouched to fastify (false). */
export type DirectRoute = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Puts `route` in front of fastify on the app's HTTP server: every request reaches it first, and
 * fastify's own handler when it declines. For a route whose framework cost matters more than
 * anything it does (POST /v1/serve: see directServe.ts; the impression pixel: directPixel.ts); a
 * later call puts its route in front of the earlier ones. The server stays the one fastify made,
 * with its timeouts, keep-alive and close handling; once the app closes, every request goes to
 * fastify, which answers 503 and closes the connection (a request on a busy keep-alive connection
 * still arrives then). `app.inject()` does not go through the server, so injected requests always
 * reach fastify's routes.
 */
export function answerBeforeFastify(app: FastifyInstance, route: DirectRoute): void {
  const server = app.server;
  const handlers = server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>;
  if (handlers.length !== 1) throw new Error(`expected one request handler on the server (fastify's, or an earlier direct route's), found ${handlers.length}`);
  const fastifyHandler = handlers[0]!;
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  server.removeListener('request', fastifyHandler);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (closing || !route(request, response)) fastifyHandler(request, response);
  });
}

/** What fastify sends with a serialized object. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A direct route's JSON answer (`payload`: the text already serialized) with the headers fastify
 * sends with it: content type and length, x-request-id, Retry-After with a 503, and, as the route's
 * error handler, `connection: close` when the request was not read whole (an answer before its body
 * closes the connection). Throws what the write throws: the caller, in a callback, must not let it out.
 */
export function writeJsonAnswer(request: IncomingMessage, response: ServerResponse, status: number, payload: string, requestId: string): void {
  const headers: Record<string, string | number> = { 'content-type': JSON_CONTENT_TYPE, 'content-length': Buffer.byteLength(payload), 'x-request-id': requestId };
  if (status === 503) headers['retry-after'] = RETRY_AFTER_SECONDS;
  if (!request.complete) headers.connection = 'close';
  response.writeHead(status, headers);
  response.end(payload);
}

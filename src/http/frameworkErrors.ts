import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, errorStatus, type ErrorCode } from './errors.js';

/** A path whose GET and HEAD requests answer an image to every token, one that does not decode too. */
export interface PixelPath {
  /** Every URL that starts with it. */
  prefix: string;
  send(reply: FastifyReply): unknown;
}

/**
 * Answers the errors fastify's router raises before any route or hook runs, in the envelope. A path
 * segment longer than the longest id (PLACEMENT_ID_MAX_LENGTH, 128: FST_ERR_MAX_PARAM_LENGTH) or one
 * that does not decode (FST_ERR_BAD_URL) cannot be an id that exists: 404 not_found, as for any other
 * id that is not valid. Under `pixel` (the impression pixel, given by app.ts) a URL that does not
 * decode answers the pixel's image instead, as it does to every bad token (nothing is recorded).
 */
export function frameworkErrorHandler(pixel: PixelPath) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    if (error.code === 'FST_ERR_BAD_URL' && request.url.startsWith(pixel.prefix) && (request.method === 'GET' || request.method === 'HEAD')) {
      pixel.send(reply);
      return;
    }
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH' || error.code === 'FST_ERR_BAD_URL') {
      reply.code(404).send(errorBody('not_found', `no resource at ${request.method} ${request.url.split('?')[0]}`));
      return;
    }
    request.log.error({ err: error }, 'request failed');
    reply.code(500).send(errorBody('internal_error', 'internal error'));
  };
}

/**
 * Node's HTTP parser rejects some requests before fastify sees them (headers over 16 KB, malformed
 * HTTP, a request that took too long to arrive). They get an HTTP response with the envelope too,
 * and the connection is closed, since what follows on it cannot be trusted to start a request.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message] = clientErrorAnswer(error.code);
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    const status = errorStatus[code];
    const body = JSON.stringify(errorBody(code, message));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function clientErrorAnswer(nodeCode: string | undefined): [ErrorCode, string] {
  if (nodeCode === 'HPE_HEADER_OVERFLOW') return ['headers_too_large', 'request headers are larger than 16 KB'];
  if (nodeCode === 'ERR_HTTP_REQUEST_TIMEOUT') return ['request_timeout', 'the request did not arrive in time'];
  return ['bad_request', 'malformed HTTP request'];
}

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { writeJsonAnswer, type DirectRoute } from '../http/answerBeforeFastify.js';
import { errorResponse } from '../http/errors.js';
import { requestIdOf } from '../http/requestId.js';
import { IMPRESSION_PATH } from './trackingLinks.js';
import { PIXEL_HEADERS, TRANSPARENT_GIF } from './transparentGif.js';

/** The route's label in the request-duration histogram: fastify's route url. */
export const IMPRESSION_ROUTE = `${IMPRESSION_PATH}*`;
/** A token's characters: base64url (format 2) and the dot of format 1. Nothing the router decodes or cuts. */
const PLAIN_TOKEN = /^[\w.-]+$/;
/** Longer than any token serving signs (trackingTokenClaims.ts reads none longer): left to the route. */
const MAX_TAKEN_TOKEN = 2048;
/**
 * The GIF as a latin1 string: node writes a string answer together with its headers in one write,
 * where a Buffer goes as a second chunk of a writev.
 */
const GIF_TEXT = TRANSPARENT_GIF.toString('latin1');

export interface DirectPixelOptions {
  /** The client's address as fastify's request.ip would give it (clientAddress.ts). */
  clientAddress(request: IncomingMessage): string | undefined;
  /** The pixel route's work, as the fastify route runs it: `answer` once, with an error for anything but the GIF. */
  track(token: string, address: string, headers: IncomingHttpHeaders, answer: (error?: unknown) => void): void;
  /** Records the answer in the request-duration histogram, as the app's onResponse hook does. */
  observe(statusCode: number, seconds: number): void;
  log: FastifyBaseLogger;
}

/**
 * GET of the impression pixel answered before fastify routes it (answerBeforeFastify.ts), for a
 * token in the usual form: base64url characters (or format 1's dot), no percent escape, query or
 * fragment aside. It runs the route's own work (`track`: the token, the visitor, the tracker, the
 * spool write) and answers what the route answers: the GIF with the same headers (content type,
 * no-store, cross-origin resource policy, content length, x-request-id), or the error envelope
 * with 503 and Retry-After when the event cannot be kept, with the same request-duration
 * observation. Only the framework's work goes (routing, request and reply objects, the onSend
 * and onResponse hooks, the reply's header handling), and the GIF goes out in the headers' write.
 * Every other request, a HEAD or a token with other characters, goes to the fastify route untouched.
 */
export function directPixel(options: DirectPixelOptions): DirectRoute {
  return (request, response) => {
    if (request.method !== 'GET') return false;
    const token = tokenOf(request.url!);
    if (token === undefined) return false;
    const address = options.clientAddress(request);
    if (address === undefined) return false;
    const started = performance.now();
    const requestId = requestIdOf(request.headers);
    const answer = (error?: unknown) => send(request, response, requestId, error, started, options);
    try {
      options.track(token, address, request.headers, answer);
    } catch (error) {
      // Thrown before anything was answered (a full buffer): answered here, as the route's error handler does.
      answer(error);
    }
    return true;
  };
}

/** The token of a pixel's URL this route takes; undefined for one it leaves to fastify. */
function tokenOf(url: string): string | undefined {
  if (!url.startsWith(IMPRESSION_PATH)) return undefined;
  const query = url.indexOf('?', IMPRESSION_PATH.length);
  const token = url.slice(IMPRESSION_PATH.length, query === -1 ? undefined : query);
  return token.length <= MAX_TAKEN_TOKEN && PLAIN_TOKEN.test(token) ? token : undefined;
}

function send(request: IncomingMessage, response: ServerResponse, requestId: string, error: unknown, started: number, options: DirectPixelOptions): void {
  if (response.headersSent) {
    options.log.child({ reqId: requestId }).error({ err: error }, 'a pixel was answered twice; the second answer is dropped');
    return;
  }
  let status = 200;
  try {
    if (error === undefined) {
      response.writeHead(200, [...PIXEL_HEADERS, 'content-length', TRANSPARENT_GIF.length, 'x-request-id', requestId]);
      response.end(GIF_TEXT, 'latin1');
    } else {
      const answer = errorResponse(error, () => options.log.child({ reqId: requestId }));
      status = answer.status;
      writeJsonAnswer(request, response, status, JSON.stringify(answer.body), requestId);
    }
  } catch (writeError) {
    // Never an exception out of a write's callback (it would end the process): this connection goes instead.
    options.log.child({ reqId: requestId }).error({ err: writeError }, 'writing a pixel answer failed');
    response.destroy();
    return;
  }
  options.observe(status, (performance.now() - started) / 1000);
}

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerBeforeFastify } from '../http/answerBeforeFastify.js';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';
import type { Postgres } from '../store/postgres.js';
import type { IndexedDestinations } from '../serving/indexedDestinations.js';
import { ApiError, errorResponse, RETRY_AFTER_SECONDS } from '../http/errors.js';
import { lazyChildLogger } from '../http/lazyRequestLogger.js';
import type { RequestDurationHistogram } from '../http/requestDurationHistogram.js';
import { creativeDestinations } from './creativeDestinations.js';
import type { LinkTracker } from './linkTracker.js';
import { CLICK_PATH } from './trackingLinks.js';
import { readTrackingToken } from './trackingTokenClaims.js';
import { PIXEL_HEADERS, TRANSPARENT_GIF } from './transparentGif.js';
import { directPixel, IMPRESSION_ROUTE } from './directPixel.js';
import { AD_GONE_PAGE, BROKEN_LINK_PAGE, CLICK_UNAVAILABLE_PAGE, isNavigation } from './readerPages.js';
import { readLinkRequest } from './linkRequest.js';

/** The query parameter the click redirect adds to the destination; conversions quote its value. */
export const CLICK_ID_PARAMETER = 'adsvc_click_id';

export interface TrackingLinkRoutesDeps {
  db: Postgres;
  indexedDestinations: IndexedDestinations;
  trackingSecret: string;
  traffic: TrafficClassifier;
  tracker: LinkTracker;
  /** The client's address as fastify's request.ip gives it, for a pixel answered before fastify (clientAddress.ts). */
  clientAddress(request: IncomingMessage): string | undefined;
  /** Where a pixel answered before fastify is recorded, as the app's onResponse hook records the route's. */
  httpDuration: RequestDurationHistogram;
}

/**
 * The two links of an ad payload. Tokens are long, beyond the router's limit for a path parameter,
 * so the routes take the rest of the path as a wildcard.
 */
export async function trackingLinkRoutes(app: FastifyInstance, { db, indexedDestinations, trackingSecret, traffic, tracker, clientAddress, httpDuration }: TrackingLinkRoutesDeps): Promise<void> {
  const destinationOf = creativeDestinations(db, indexedDestinations);

  // The same GIF whatever the verdict, so filtering is never revealed. The only other answer is 503
  // when the event cannot be kept (buffer full, spool not writable): nothing was stored, and the
  // browser sees the backpressure.
  /** The pixel's work, for the fastify route and the direct one alike: `answer()` the GIF, `answer(error)` for a 503 (thrown when the buffer is full). */
  function trackPixel(tokenText: string, address: string, headers: IncomingHttpHeaders, answer: (error?: unknown) => void): void {
    const nowMs = Date.now();
    const token = readTrackingToken(tokenText, trackingSecret, nowMs);
    if (!token) {
      answer();
      return;
    }
    tracker.trackImpression(token, readLinkRequest(traffic, address, headers), nowMs, answer);
  }
  // The usual pixel skips fastify's routing and lifecycle (directPixel.ts); the route below answers the rest.
  answerBeforeFastify(
    app,
    directPixel({
      clientAddress,
      track: trackPixel,
      observe: httpDuration.observerOf(IMPRESSION_ROUTE, 'GET'),
      log: app.log,
    }),
  );
  // A callback handler, not an async one: no promise per pixel (it answers from the spool write's callback).
  app.get(IMPRESSION_ROUTE, linkRouteOptions, (request, reply) => {
    trackPixel(tokenOf(request), request.ip, request.headers, (error) => (error === undefined ? sendPixel(reply) : reply.send(error)));
  });
  // Link scanners and prefetchers: the image's headers, and no event.
  app.head(IMPRESSION_ROUTE, linkRouteOptions, async (_request, reply) => sendPixel(reply));

  // Invalid clicks are redirected too; only a link that names no creative we know answers 404: the
  // envelope for a token that is not ours, a page for a reader whose ad was deleted since its serve.
  app.get(`${CLICK_PATH}*`, linkRouteOptions, async (request, reply) => {
    try {
      return await trackClickLink(request, reply);
    } catch (error) {
      if (!isNavigation(request.headers)) throw error;
      // A person's navigation: whatever the envelope answers 503 (errorResponse, the one mapping, and
      // its log line) is the same 503 and Retry-After as a page, and a link we did not sign (most often
      // one cut short in a message) the same 404 as a page. Any other answer is the envelope's, sent
      // here rather than rethrown so errorResponse logs it once.
      const { status, body } = errorResponse(error, () => request.log);
      if (status === 404) return reply.code(404).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(BROKEN_LINK_PAGE);
      if (status !== 503) return reply.code(status).send(body);
      return reply.code(503).header('retry-after', RETRY_AFTER_SECONDS).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(CLICK_UNAVAILABLE_PAGE);
    }
  });

  async function trackClickLink(request: FastifyRequest, reply: FastifyReply) {
    const nowMs = Date.now();
    const token = readTrackingToken(tokenOf(request), trackingSecret, nowMs);
    if (!token) throw new ApiError('not_found', 'tracking link not found');
    const destination = await destinationOf(token.claims.r, token.claims.l, nowMs);
    if (!destination) {
      // Only a link we signed can say its ad was withdrawn. A forged one names ids it chose: it is
      // stored as bad_token (cost 0, so tampering shows per campaign) and is simply not found.
      if (token.ivt !== 'bad_token') return reply.code(404).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(AD_GONE_PAGE);
      await tracker.trackClick(token, readLinkRequest(traffic, request.ip, request.headers), nowMs);
      throw new ApiError('not_found', 'tracking link not found');
    }
    const click = await tracker.trackClick(token, readLinkRequest(traffic, request.ip, request.headers), nowMs);
    return reply.code(302).header('cache-control', 'no-store').header('location', withClickId(destination, click.event_id)).send();
  }
}

/** The pixel's answer, whatever the verdict (also for a token that does not decode: src/http/frameworkErrors.ts). */
export function sendPixel(reply: FastifyReply): FastifyReply {
  for (let i = 0; i < PIXEL_HEADERS.length; i += 2) reply.header(PIXEL_HEADERS[i]!, PIXEL_HEADERS[i + 1]);
  return reply.send(TRANSPARENT_GIF);
}

/**
 * A HEAD request (link scanners, prefetchers) is neither an image load nor a click: it must not
 * record an event (the pixel's HEAD route records none; the click has none, so it is 404). No access log line either: these routes take the most traffic, and every event
 * they see is recorded in ClickHouse already; warnings and errors are still logged.
 */
// Publishers and link wrappers append their own parameters (utm_*) to links: any query is taken.
const linkRouteOptions = { exposeHeadRoute: false, logLevel: 'warn', childLoggerFactory: lazyChildLogger, config: { query: 'any' } } as const;

function tokenOf(request: FastifyRequest): string {
  return (request.params as { '*': string })['*'];
}

/** Appends the click id and keeps the destination's own query and fragment exactly as the advertiser wrote them. */
function withClickId(destination: string, clickId: string): string {
  const url = new URL(destination);
  const parameter = `${CLICK_ID_PARAMETER}=${clickId}`;
  url.search = url.search.length > 1 ? `${url.search}&${parameter}` : `?${parameter}`;
  return url.toString();
}

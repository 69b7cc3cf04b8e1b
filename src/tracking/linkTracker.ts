import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { clickRequestIvt, impressionRequestIvt } from '../ivt/fetchMetadata.js';
import type { IvtReason } from '../ivt/ivtReasons.js';
import type { EventPipeline } from './eventPipeline.js';
import { linkEvent } from './linkEvent.js';
import type { LinkRequest } from './linkRequest.js';
import type { ServeHistoryLookup } from './serveHistoryLookup.js';
import type { ServeLedger } from './serveLedger.js';
import type { TrackedEvent } from './trackedEvent.js';
import type { ReadToken } from './trackingTokenClaims.js';

/**
 * A click sooner than this after its serve's first impression is not a person reading an ad and
 * deciding to follow it (the impression fires when the ad enters the viewport): `click_too_fast`.
 */
export const MIN_CLICK_DELAY_MS = 1000;

export interface LinkTrackerDeps {
  events: EventPipeline;
  ledger: ServeLedger;
  /** What ClickHouse holds about a serve this process has not seen counted (batched). */
  history: ServeHistoryLookup;
  log: FastifyBaseLogger;
}

/**
 * Classifies and stores the events of tracking links. One reason per event, in this order: the token
 * (bad_token, expired_token), the address (private_ip, datacenter), the user agent (bot,
 * no_user_agent), server-side markers (server_side), how the request was made (not_image_request,
 * not_navigation), then the serve's history (duplicate, click_without_impression, click_too_fast,
 * and when the history could not be looked up impression_unverified for a click, serve_unverified
 * for an impression).
 *
 * Exactly one billable impression and one billable click per serve, whichever instance sees them:
 * the ledger's "already counted" is final, but its "not counted" only speaks for this process, so
 * an event that would be billed first asks ClickHouse (batched) what other instances and earlier
 * runs recorded. The verdict, the spool write and the ledger update then happen without an await
 * in between, so two requests of one serve waiting on the same answer cannot both be billed.
 */
export function createLinkTracker({ events, ledger, history, log }: LinkTrackerDeps) {
  async function trackImpression(token: ReadToken, request: LinkRequest, nowMs: number): Promise<TrackedEvent> {
    const { claims } = token;
    let ivt: IvtReason | '' = token.ivt || request.visitor.ivt || request.serverSide || impressionRequestIvt(request.fetch);
    const learned = ivt === '' && !ledger.get(claims.s)?.impressionCounted ? await learnHistory(claims.s) : true;
    if (ivt === '' && ledger.get(claims.s)?.impressionCounted) ivt = 'duplicate';
    else if (ivt === '' && !learned) ivt = 'serve_unverified';
    const event = linkEvent('impression', claims, request, ivt, randomUUID(), nowMs);
    // One spool write for the turn's pixels; the answer waits for it.
    const written = events.acceptInTurn([event]);
    // Forged and expired tokens teach nothing about the serve: their claims are not trusted. Recorded
    // before the write, so a second impression of the serve in the same turn is the duplicate.
    if (token.ivt === '') ledger.record(claims.s, { impressionAt: nowMs, impressionCounted: ivt === '' });
    return written.then(
      () => event,
      (error: unknown) => {
        // Not stored (503): the serve's billable impression is still to come. The turn's duplicates
        // of it shared the failed write, so none of them was stored either.
        if (ivt === '') ledger.uncountImpression(claims.s);
        throw error;
      },
    );
  }

  /** The click's event id is its click id, which the redirect hands to the advertiser. */
  async function trackClick(token: ReadToken, request: LinkRequest, nowMs: number): Promise<TrackedEvent> {
    const { claims } = token;
    let ivt: IvtReason | '' = token.ivt || request.visitor.ivt || request.serverSide || clickRequestIvt(request.fetch);
    const learned = ivt === '' && !ledger.get(claims.s)?.clickCounted ? await learnHistory(claims.s) : true;
    if (ivt === '') ivt = clickQuality(claims.s, learned, nowMs);
    const event = linkEvent('click', claims, request, ivt, randomUUID(), nowMs);
    events.accept([event]);
    if (token.ivt === '') ledger.record(claims.s, { clickCounted: ivt === '' });
    return event;
  }

  /** Merges what ClickHouse holds about the serve into the ledger; false when it could not be asked. */
  async function learnHistory(serveId: string): Promise<boolean> {
    try {
      ledger.record(serveId, await history.find(serveId));
      return true;
    } catch (error) {
      log.warn({ err: error, serve_id: serveId }, 'could not look up the history of a serve; its event is not billed');
      return false;
    }
  }

  function clickQuality(serveId: string, learned: boolean, nowMs: number): IvtReason | '' {
    const serve = ledger.get(serveId);
    if (serve?.clickCounted) return 'duplicate';
    if (!learned) return 'impression_unverified';
    if (!serve?.impressionAt) return 'click_without_impression';
    if (nowMs - serve.impressionAt < MIN_CLICK_DELAY_MS) return 'click_too_fast';
    return '';
  }

  return { trackImpression, trackClick };
}

export type LinkTracker = ReturnType<typeof createLinkTracker>;

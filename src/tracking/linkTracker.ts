import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { navigationWithoutClientHints } from '../ivt/clientHints.js';
import { clickRequestIvt, impressionRequestIvt } from '../ivt/fetchMetadata.js';
import type { IvtReason } from '../ivt/ivtReasons.js';
import { billedEvent } from '../money/priceModels.js';
import type { BillingCeiling } from './billingCeiling.js';
import { ClickVelocity, type ClickPace } from './clickVelocity.js';
import type { EventPipeline } from './eventPipeline.js';
import type { ImpressionVelocity } from './impressionVelocity.js';
import { linkEvent } from './linkEvent.js';
import type { LinkRequest } from './linkRequest.js';
import type { PlacementBlocks } from './placementBlocks.js';
import { onProcessClock, processClockMs } from './processClock.js';
import type { ServeHistory } from './serveHistory.js';
import type { ServeHistoryLookup } from './serveHistoryLookup.js';
import type { ServeLedger } from './serveLedger.js';
import type { TrackedEvent } from './trackedEvent.js';
import type { ReadToken } from './trackingTokenClaims.js';

/**
 * A click sooner than this after its serve's first valid impression is not a person reading an ad and
 * deciding to follow it (the impression fires when the ad enters the viewport): `click_too_fast`.
 * Timed on the process clock (processClock.ts), so a wall clock stepped back does not shorten it.
 */
export const MIN_CLICK_DELAY_MS = 1000;

export interface LinkTrackerDeps {
  events: EventPipeline;
  ledger: ServeLedger;
  /** What ClickHouse holds about the serve of a click this process does not know (batched). */
  history: ServeHistoryLookup;
  /** Judges each valid event against its line item's budgets and frequency cap: over one, stored unbilled. */
  ceiling: BillingCeiling;
  log: FastifyBaseLogger;
  /** Browsers send Fetch Metadata to TRACKING_BASE_URL (https or loopback): its absence is judged. */
  fetchMetadataExpected: boolean;
  /** Billable (tCPM) impressions per publisher and network (IMPRESSION_VELOCITY_10S, _10MIN) and block (IMPRESSION_BLOCK_VELOCITY_*). */
  impressionVelocity: ImpressionVelocity;
  /** Each publisher's valid impressions and clicks per block of addresses (PLACEMENT_CLICK_VELOCITY_*, PLACEMENT_CLICK_THROUGH_MAX). */
  placementBlocks: PlacementBlocks;
}

/**
 * Classifies and stores the events of tracking links. One reason per event, in this order: the token
 * (bad_token, expired_token), the address (private_ip, datacenter), the user agent (bot,
 * no_user_agent), server-side markers (server_side), the client hints (client_hints_mismatch), how the request was made (not_image_request,
 * not_navigation, outdated_browser, no_fetch_metadata, no_user_activation; then a Chromium click without client hints,
 * client_hints_mismatch), then the serve's history (duplicate, click_without_impression, click_too_fast,
 * impression_unverified), then the pace (click_velocity of the visitor and its network, placement_click_velocity of a
 * publisher's placements from one IPv4 /24 or IPv6 /48 clicking far more of their impressions than a crowd does,
 * impression_velocity of the network or block in a publisher's placements, for tCPM impressions). A valid event is then judged by
 * the billing ceilings (billingCeiling.ts): over one, it is stored as valid but unbilled.
 *
 * The serve's history is this process's ledger; a click whose serve it does not know asks ClickHouse
 * (batched). What another instance or an earlier run billed is settled when the event is written
 * (billedOnce.ts), so the pixel does not wait on a query, but for one judged over a spend ceiling
 * while its line item's unwritten spend is unchecked for repeats of such serves: it waits for that
 * check, SERVE_LOOKUP_TIMEOUT_MS at most (billingCeiling.ts settleRepeats).
 */
export function createLinkTracker({ events, ledger, history, ceiling, log, fetchMetadataExpected, impressionVelocity, placementBlocks }: LinkTrackerDeps) {
  /**
   * The pixel's hot path is the token check, two lookups in memory and one spool write; one judged
   * over a spend ceiling may first wait for its line item's check of repeats (judgedAgain), one
   * query for every such pixel of the line item at once, SERVE_LOOKUP_TIMEOUT_MS at most.
   * `settled()` once the event is in the spool, `settled(error)` when it could not be kept (503);
   * throws that error at once when the buffer is full.
   */
  function trackImpression(token: ReadToken, request: LinkRequest, nowMs: number, settled: (error?: unknown) => void): void {
    const arrivedAt = processClockMs();
    const { claims } = token;
    let ivt: IvtReason | '' = token.ivt || request.visitor.ivt || request.serverSide || request.clientHints || impressionRequestIvt(request.fetch, request.visitor.userAgent, fetchMetadataExpected);
    if (ivt === '' && ledger.impressionCounted(claims.s)) ivt = 'duplicate';
    // Only where the impression itself is billed (tCPM): a CPC or CPA serve's impression costs
    // nothing, and one this rule stopped would leave its serve without the valid impression its
    // click needs (click_without_impression), and that click's conversion an invalid_click.
    if (ivt === '' && billedEvent[claims.m] === 'impression' && impressionVelocity.tooFast(request.visitor, claims.u, nowMs)) ivt = 'impression_velocity';
    // What a block's clicks of the publisher's placements are judged against: a crowd clicks a few per cent of these.
    if (ivt === '') placementBlocks.impression(request.visitor, claims.u, nowMs);
    const event = linkEvent('impression', claims, request, ivt, randomUUID(), nowMs);
    const cost = event.cost_nanos;
    ceiling.judge(event, nowMs);
    // Over a ceiling, maybe only by repeats of serves an earlier run or another instance counted:
    // judged again once they are taken out of the spend (billingCeiling.ts settleRepeats). Rare: the
    // usual pixel goes straight on.
    const check = event.unbilled === '' ? undefined : ceiling.settleRepeats(event, nowMs);
    if (check === undefined) return store(event, ivt === '', arrivedAt, settled);
    void judgedAgain(event, cost, nowMs, arrivedAt, check, SETTLE_ROUNDS, settled);
  }

  /**
   * Judges an impression again once `check` settled its line item's repeats (ClickHouse's answer
   * recorded in the ledger), and stores it in the same step, so that the next impression judged
   * sees it held: a duplicate when its own serve's impression was counted (by that answer or by a
   * pixel stored meanwhile), else judged against the spend without the repeats (BillingCeiling.judgeAgain).
   * Still over a ceiling while more unchecked spend came in during the check (a burst's later
   * turns), it checks again, `rounds` times at most, all within the one wait settleRepeats allows
   * from `nowMs`. When the check could not answer (undefined), or the counters moved to the next UTC
   * day meanwhile, the first verdict stands: stored over the ceiling, unbilled.
   */
  async function judgedAgain(
    event: TrackedEvent,
    cost: number,
    nowMs: number,
    arrivedAt: number,
    check: Promise<Map<string, ServeHistory> | undefined>,
    rounds: number,
    settled: (error?: unknown) => void,
  ): Promise<void> {
    const histories = await check;
    for (const [serveId, history] of histories ?? []) if (history.impressionCounted || history.clickCounted) ledger.record(serveId, onProcessClock(history));
    if (ledger.impressionCounted(event.serve_id)) {
      event.ivt = 'duplicate';
      event.unbilled = '';
      event.cost_nanos = 0;
    } else if (histories !== undefined && ceiling.judgeAgain(event, cost, nowMs)) {
      const again = rounds > 1 && event.unbilled !== '' ? ceiling.settleRepeats(event, nowMs) : undefined;
      if (again !== undefined) return judgedAgain(event, cost, nowMs, arrivedAt, again, rounds - 1, settled);
    }
    try {
      store(event, event.ivt === '', arrivedAt, settled);
    } catch (error) {
      settled(error);
    }
  }

  /**
   * Spools a judged impression (throws at once when the buffer is full), holding its cost and
   * impression until the write; `counted` when valid, timed at `arrivedAt` on the process clock.
   */
  function store(event: TrackedEvent, counted: boolean, arrivedAt: number, settled: (error?: unknown) => void): void {
    let held = 0;
    // One spool write for the turn's pixels; the answer waits for it.
    events.acceptInTurn(event, (error) => {
      // Written and counted by pacing and frequency counts, or not stored: no longer held.
      ceiling.release(event, held);
      // Not stored (503): the serve's billable impression is still to come. The turn's duplicates
      // of it shared the failed write, so none of them was stored either.
      if (error !== undefined && counted) ledger.uncountImpression(event.serve_id);
      settled(error);
    });
    held = ceiling.hold(event);
    // Only a valid impression lets the serve's click count: one from a data center, a bot or a script
    // fetch is no reader seeing the ad (and forged and expired tokens' claims are not trusted).
    // Recorded before the write, so a second impression of the serve in the same turn is the duplicate.
    if (counted) ledger.record(event.serve_id, { impressionAt: arrivedAt, impressionCounted: true });
  }

  /**
   * Lookups of serves this process does not know, one per serve while it is under way: every click
   * of the serve waits for the same answer.
   */
  const lookups = new Map<string, Promise<void>>();
  const velocity = new ClickVelocity(placementBlocks);

  /** The click's event id is its click id, which the redirect hands to the advertiser. */
  async function trackClick(token: ReadToken, request: LinkRequest, nowMs: number): Promise<TrackedEvent> {
    const arrivedAt = processClockMs();
    const { claims } = token;
    let ivt: IvtReason | '' =
      token.ivt ||
      request.visitor.ivt ||
      request.serverSide ||
      request.clientHints ||
      clickRequestIvt(request.fetch, request.visitor.userAgent, fetchMetadataExpected) ||
      navigationWithoutClientHints(request.clientHintsSent, request.visitor.userAgent, request.fetch, fetchMetadataExpected);
    if (ivt === '') ivt = await learnServe(claims.s, arrivedAt);
    // From here on nothing awaits: the verdict, the spool write and the ledger's record are one step,
    // so of the clicks that waited for the same lookup only the first to run can be counted (a click
    // judged late, storeLateClick, is recorded in the ledger before its own await).
    if (ivt === '') ivt = clickQuality(claims.s, arrivedAt);
    const pace = ivt === '' ? velocity.judge(request.visitor, claims.u, nowMs) : undefined;
    if (pace?.tooFast) ivt = pace.tooFast;
    if (ivt === 'placement_click_velocity') flagBlock(claims.p, claims.u, nowMs);
    const event = linkEvent('click', claims, request, ivt, randomUUID(), nowMs);
    // Its lookup straddled midnight and the counters moved to the next day meanwhile: judged by its own day's spend.
    if (ceiling.readsSpend(event, nowMs, undefined)) return storeLateClick(event, nowMs, pace);
    ceiling.judge(event, nowMs);
    // Pacing counts its cost as it is spooled: the next click's verdict sees it.
    events.accept([event]);
    // Only once stored: a click answered 503 (accept threw) is retried, and its retry is the same click.
    pace?.count();
    if (token.ivt === '') ledger.record(claims.s, { clickCounted: ivt === '' });
    return event;
  }

  /**
   * Judges and stores a valid click the counters left behind while it awaited (its serve's lookup
   * straddled midnight), against its own day's billed spend (BillingCeiling.judgeLateClick). Counted
   * in the ledger first, as the click every other one of its serve decided meanwhile is a duplicate
   * of, and taken back when it is not stored (503).
   */
  async function storeLateClick(event: TrackedEvent, nowMs: number, pace: ClickPace | undefined): Promise<TrackedEvent> {
    ledger.record(event.serve_id, { clickCounted: true });
    try {
      await ceiling.judgeLateClick(event, nowMs, () => events.accept([event]));
    } catch (error) {
      ledger.uncountClick(event.serve_id);
      throw error;
    }
    pace?.count();
    return event;
  }

  /**
   * Asks ClickHouse about a serve whose click the ledger alone cannot bill; 'impression_unverified'
   * when it cannot answer. That includes an impression too recent for the click: a process that
   * forgot the serve takes a repeated pixel for its first one, while the real first one, long
   * before, is in ClickHouse (the ledger keeps the earlier time). `arrivedAt` is on the process clock.
   */
  async function learnServe(serveId: string, arrivedAt: number): Promise<'impression_unverified' | ''> {
    const serve = ledger.get(serveId);
    if (serve?.clickCounted || (serve?.impressionAt && arrivedAt - serve.impressionAt >= MIN_CLICK_DELAY_MS)) return '';
    let lookup = lookups.get(serveId);
    if (lookup === undefined) {
      lookup = history
        .find(serveId)
        .then((found) => ledger.record(serveId, onProcessClock(found)))
        .finally(() => lookups.delete(serveId));
      lookups.set(serveId, lookup);
    }
    try {
      await lookup;
      return '';
    } catch (error) {
      log.warn({ err: error, serve_id: serveId }, 'could not look up the serve of a click; it is not billed');
      return 'impression_unverified';
    }
  }

  /**
   * A publisher whose clicks from one block of addresses are being refused is most often clicking
   * its own ads: warned about at most once a publisher per 10 minutes (and counted in
   * adsvc_events_invalid_total by its reason), for an operator's log alert, as auto-revocation flags
   * server-side pixels. Keyed like the rule (per publisher, all its placements together), so a
   * publisher clicking across P placements is one line, not P (rev41 R6); it names the placement of
   * the click that tripped it, where the operator starts looking. Each instance warns of what it
   * refuses itself.
   */
  const flaggedAt = new Map<string, number>();
  function flagBlock(placementId: string, publisherId: string, nowMs: number): void {
    const last = flaggedAt.get(publisherId);
    if (last !== undefined && nowMs - last < FLAG_INTERVAL_MS) return;
    if (flaggedAt.size >= FLAGGED_CAPACITY) flaggedAt.clear();
    flaggedAt.set(publisherId, nowMs);
    log.warn({ placement_id: placementId, publisher_id: publisherId }, 'placement flagged for review: clicks from one block of addresses beyond placement_click_velocity');
  }

  /**
   * The serve's history against a click that arrived at `arrivedAt` on the process clock. A click
   * timed before its impression is not a fast one: every impression this process recorded is on
   * the same monotonic clock as the click, so only an impression time learned from another clock
   * (ClickHouse's: another instance's, or this one's before a restart, when the two disagree) can be
   * later than the click, and how far is the clocks' disagreement, not the reader's speed. Such a
   * click is judged as one whose delay is unknown, by the other rules: billed when they pass it. A
   * client cannot move either time (both are servers'), so this gives an attacker nothing a clock
   * ahead would not (docs/running-on-servers.md, "Clocks").
   */
  function clickQuality(serveId: string, arrivedAt: number): IvtReason | '' {
    const serve = ledger.get(serveId);
    if (serve?.clickCounted) return 'duplicate';
    if (!serve?.impressionAt) return 'click_without_impression';
    const delay = arrivedAt - serve.impressionAt;
    if (delay >= 0 && delay < MIN_CLICK_DELAY_MS) return 'click_too_fast';
    return '';
  }

  return { trackImpression, trackClick };
}

/** Most checks of repeats one impression over a ceiling waits for (judgedAgain). */
const SETTLE_ROUNDS = 3;

const FLAG_INTERVAL_MS = 600_000;
/** Publishers remembered as warned about; past it all are forgotten, so a few warn again early. */
const FLAGGED_CAPACITY = 10_000;

export type LinkTracker = ReturnType<typeof createLinkTracker>;

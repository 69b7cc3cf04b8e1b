import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { campaignOf } from '../management/campaignTenancy.js';
import { convertToUsd } from '../money/usdRates.js';
import type { ClickHouse } from '../store/clickhouse.js';
import type { Postgres } from '../store/postgres.js';
import type { BillingCeiling } from './billingCeiling.js';
import { billedClickOfServe, findClick, type StoredClick } from './clickLookup.js';
import { conversionLock } from './conversionLock.js';
import { conversionTimes } from './conversionTimes.js';
import type { ConversionInput, ConversionResult } from './conversionSchemas.js';
import type { EventPipeline } from './eventPipeline.js';
import { EVENT_RETENTION_DAYS } from './eventImport.js';
import { hashedEventId } from './hashedEventId.js';
import { clickPrice, findLineItemPricing, type LineItemPricing, type PricingProblem } from './lineItemPricing.js';
import { NO_EVENT_CONTEXT, type TrackedEvent } from './trackedEvent.js';
import { NANOS_PER_USD, usdToNanos } from '../money/nanoUsd.js';
import type { UnbilledReason } from './unbilledReasons.js';
import type { Visitor } from './visitor.js';
import { MS_PER_DAY } from '../utcDays.js';

/** A reporting server's clock may run a little ahead of ours. */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** 404's message: the same for an unknown click, another organization's, and one not stored yet. */
const CLICK_NOT_FOUND = 'click not found (or not yet: a click can be quoted about a second after it, once stored; retry a 404 that follows the click closely)';

export interface ConversionOutcome {
  result: ConversionResult;
  /** false when the same conversion_id for the same click was already recorded: nothing new was stored. */
  created: boolean;
}

export interface ConversionRecorderDeps {
  db: Postgres;
  ch: ClickHouse;
  events: EventPipeline;
  /** A CPA conversion over its line item's budget ceilings is stored unbilled. */
  ceiling: BillingCeiling;
  attributionWindowDays: number;
}

/**
 * Attributes a reported conversion to its click. A click of another organization, or one that does
 * not exist, is 404. A click of the organization's campaign deleted since is attributed to that
 * campaign (its tombstone, migrations/0017, keeps whose it was) at cost 0, `unbilled`
 * campaign_deleted: deleting ends a campaign's conversion billing (the pixels and clicks of ads it
 * served before are still billed while their links are valid), not the outcomes of the clicks it
 * paid for. A conversion of a serve's later click (`duplicate`) is the serve's billed click's
 * (quotedClick). A conversion of an invalid click, or outside [click, click + window], is stored
 * for audit as invalid traffic (invalid_click, outside_window): neither revenue nor cost is reported.
 * A valid one of a CPA serve (the click's price model) costs the CPA price signed into its click
 * (clickPrice: the line item's current bid for a click stored before the price was kept); nothing
 * for a serve of another model, nor when that cost would take the line item past a budget's billing
 * ceiling (billingCeiling.ts: then it is attributed, its revenue reported, at cost 0).
 */
export function createConversionRecorder({ db, ch, events, ceiling, attributionWindowDays }: ConversionRecorderDeps) {
  const lock = conversionLock(db);
  const firstTime = conversionTimes(db);

  async function record(input: ConversionInput, organizationId: string, visitor: Visitor, nowMs: number): Promise<ConversionOutcome> {
    const occurredAt = input.occurred_at ? Date.parse(input.occurred_at) : nowMs;
    if (occurredAt > nowMs + FUTURE_TOLERANCE_MS) {
      throw new ApiError('validation_error', 'request is invalid', [{ path: 'occurred_at', message: 'must not be in the future' }]);
    }
    // events_v1 drops an older row (its TTL) and cannot hold one before 1970: a 2xx would be a lie.
    if (occurredAt < nowMs - EVENT_RETENTION_DAYS * MS_PER_DAY) {
      const message = `must be within the ${EVENT_RETENTION_DAYS} days raw events are kept`;
      throw new ApiError('validation_error', 'request is invalid', [{ path: 'occurred_at', message }]);
    }
    // Tenancy first, so that not even a replayed conversion of another organization's click is shown.
    const { click, clickId } = await quotedClick(ch, input.click_id);
    const pricing = click && (await findLineItemPricing(db, click.line_item_id, organizationId));
    const deleted = click !== undefined && pricing === 'not_found' && (await isDeletedLineItemOf(db, click, organizationId));
    // A click is quotable once its event is in ClickHouse (a flush after it): a landing page reporting
    // on load can be early, and the message says so, as docs/tracking.md does.
    if (!click || !pricing || (pricing === 'not_found' && !deleted)) throw new ApiError('not_found', CLICK_NOT_FOUND);

    const revenueUsd = input.value === undefined ? 0 : (convertToUsd(input.value, input.currency) ?? 0);
    const price = clickPrice(click, pricing);
    const eventOf = (eventId: string, eventTime: number): TrackedEvent => {
      const ivt = attributionProblem(click, eventTime);
      const billable = ivt === '' && click.price_model === 'CPA';
      return {
        event_id: eventId,
        event_time: eventTime,
        type: 'conversion',
        source: 'conversion_api',
        serve_id: click.serve_id,
        campaign_id: click.campaign_id,
        line_item_id: click.line_item_id,
        creative_id: click.creative_id,
        placement_id: click.placement_id,
        publisher_id: click.publisher_id,
        // The model and price agreed at serve time (signed into the click's token, kept on its row)
        // decide what the conversion costs: a CPC serve was paid at its click, and a bid switched
        // to CPA after it must not bill the same serve again; a CPA bid lowered or raised after
        // the click does not change the price its ad won with.
        price_model: click.price_model,
        cost_nanos: billable && !deleted ? price : 0,
        revenue_nanos: usdToNanos(revenueUsd),
        click_id: clickId,
        // The caller is the advertiser's server, not the converting person: its address is kept for
        // audit but does not make the conversion invalid.
        ip: visitor.ip.ip,
        ip_class: visitor.ip.ipClass,
        ip_network: visitor.ip.network,
        user_agent: visitor.userAgent,
        ivt,
        ...NO_EVENT_CONTEXT,
        unbilled: billable && deleted ? ('campaign_deleted' satisfies UnbilledReason) : '',
        // The converting person's country is the click's, as its line item, placement and creative
        // are: the caller's address would put every conversion in the advertiser server's country.
        country: click.country,
        price_nanos: price,
      };
    };
    const budgets = budgetsOf(pricing);
    if (input.conversion_id === undefined) {
      // Each is new (a repeat purchase): spooled like every event, and in ClickHouse within a flush.
      const event = eventOf(randomUUID(), occurredAt);
      await ceiling.lateTurn(event, nowMs, budgets, (turn) => ceiling.judgeAndStore(event, nowMs, budgets, turn, () => events.accept([event])));
      return { result: resultOf(event), created: true };
    }
    const eventId = conversionEventId(clickId, input.conversion_id);
    const upperCasedId = conversionEventIdBeforeLowerCasing(clickId, input.conversion_id);
    // A retry of a stored conversion (a postback resent whole after its client timed out) is answered
    // here, with no lock: it writes no first time and takes no late turn, where it would wait behind
    // the line item's new late conversions and push them past the turns' bound (rev43 R4).
    const found = await storedConversion(eventId, upperCasedId);
    if (found) return { result: found, created: false };
    // With the first request's time, whenever this one came (conversionTimes.ts says why): known
    // before the lock, so that a conversion of an earlier day takes its line item's late turn first
    // (BillingCeiling.lateTurn) and waits for it holding no lock.
    const event = eventOf(eventId, await firstTime(eventId, occurredAt));
    // Looked up and written in one step across instances (conversionLock.ts), and written to
    // ClickHouse before the answer, so that the next request with this conversion_id, at any
    // instance and after any restart, finds it there. The token makes ClickHouse itself keep one
    // insert of the same conversion even if two ever ran (a holder cut off while its insert runs),
    // across a month boundary too: every try carries the first one's time, so its partition.
    return ceiling.lateTurn(event, nowMs, budgets, (turn) =>
      lock(eventId, async () => {
        // Looked up again: another request with this conversion_id may have stored it since.
        const stored = await storedConversion(eventId, upperCasedId);
        if (stored) return { result: stored, created: false };
        await ceiling.judgeAndStore(event, nowMs, budgets, turn, async () => {
          // Pacing counts a written event once ClickHouse has it: until then other conversions see it held.
          const held = ceiling.hold(event);
          try {
            await events.writeNow([event], `conversion:${eventId}`);
          } finally {
            ceiling.release(event, held);
          }
        });
        return { result: resultOf(event), created: true };
      }),
    );
  }

  /**
   * The conversion as ClickHouse holds it under either id, or undefined. An earlier try ClickHouse
   * refused may be in events_v1 without every view: it is completed first, as it was sent, so that
   * an answer that finds it stored is true of the reports too.
   */
  async function storedConversion(eventId: string, upperCasedId: string): Promise<ConversionResult | undefined> {
    await events.completeRefusedWrites([eventId]);
    return findConversion(ch, [eventId, upperCasedId]);
  }

  function attributionProblem(click: StoredClick, occurredAt: number): string {
    if (click.ivt !== '') return 'invalid_click';
    if (occurredAt < click.time_ms || occurredAt > click.time_ms + attributionWindowDays * MS_PER_DAY) return 'outside_window';
    return '';
  }

  return { record };
}

/** The line item's budgets as Postgres has them, for a line item the billing counters no longer keep (a deleted one's conversions cost nothing). */
function budgetsOf(pricing: LineItemPricing | PricingProblem): LineItemPricing['budgets'] {
  return typeof pricing === 'string' ? undefined : pricing.budgets;
}

export type ConversionRecorder = ReturnType<typeof createConversionRecorder>;

/**
 * The click a conversion is attributed to: the one it quotes, or, when that is a later click of the
 * same serve (stored `duplicate`: the reader came back through the same link, and was not billed
 * again), the serve's billed click. The conversion is real and the serve's click was valid, so it
 * is attributed and its revenue reported like one quoting the first click, and keyed on that click:
 * the same conversion_id reported with either click id is one conversion, billed once.
 */
async function quotedClick(ch: ClickHouse, clickId: string): Promise<{ click: StoredClick | undefined; clickId: string }> {
  const click = await findClick(ch, clickId);
  if (click?.ivt !== 'duplicate') return { click, clickId };
  return (await billedClickOfServe(ch, click)) ?? { click, clickId };
}

/**
 * Whether the click's line item belonged to a campaign of the organization that was deleted since:
 * its tombstone (migrations/0017), under the tenancy rule of live campaigns (campaignTenancy.ts).
 */
async function isDeletedLineItemOf(db: Postgres, click: StoredClick, organizationId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM deleted_line_items li JOIN deleted_campaigns gone ON gone.id = li.campaign_id
      WHERE li.id = $1 AND gone.id = $2 AND ${campaignOf('$3', 'gone')}`,
    [click.line_item_id, click.campaign_id, organizationId],
  );
  return rows.length > 0;
}

/** The same click and conversion_id always give the same event id (`clickId` lower-cased, as conversionSchemas.ts reads it). */
export function conversionEventId(clickId: string, conversionId: string): string {
  return hashedEventId(`${clickId}\n${conversionId}`);
}

/**
 * The other event id the same conversion may already be stored under: builds before the click id
 * was lower-cased as it is read (session 33) hashed it as it was sent, so an order first reported
 * with the id upper-cased (SQL Server, .NET) is kept under the hash of the upper-case text, and a
 * retry after the upgrade, in either case, must find it rather than bill it again. Upper case is
 * the one other form stacks send a UUID in; such a conversion stays in events_v1 its 400 days.
 */
function conversionEventIdBeforeLowerCasing(clickId: string, conversionId: string): string {
  return hashedEventId(`${clickId.toUpperCase()}\n${conversionId}`);
}

type ConversionFields = Pick<TrackedEvent, 'event_id' | 'click_id' | 'campaign_id' | 'line_item_id' | 'revenue_nanos' | 'cost_nanos' | 'ivt' | 'unbilled'>;

function resultOf(event: ConversionFields): ConversionResult {
  return {
    id: event.event_id,
    click_id: event.click_id,
    campaign_id: event.campaign_id,
    line_item_id: event.line_item_id,
    revenue_usd: event.revenue_nanos / NANOS_PER_USD,
    cost_usd: event.cost_nanos / NANOS_PER_USD,
    attributed: event.ivt === '',
    reason: event.ivt === '' ? null : event.ivt,
    unbilled_reason: event.unbilled === '' ? null : event.unbilled,
  };
}

const conversionRow = z.object({
  event_id: z.string(),
  click_id: z.string(),
  campaign_id: z.string(),
  line_item_id: z.string(),
  revenue_nanos: z.coerce.number(),
  cost_nanos: z.coerce.number(),
  ivt: z.string(),
  unbilled: z.string(),
});

async function findConversion(ch: ClickHouse, eventIds: string[]): Promise<ConversionResult | undefined> {
  const result = await ch.client.query({
    query: `SELECT event_id, click_id, campaign_id,
                   line_item_id, revenue_nanos, cost_nanos, ivt, unbilled
            FROM events_v1
            WHERE type = 'conversion' AND event_id IN {event_ids:Array(UUID)}
            LIMIT 1`,
    query_params: { event_ids: eventIds },
    format: 'JSONEachRow',
  });
  const rows = await result.json();
  return rows[0] === undefined ? undefined : resultOf(conversionRow.parse(rows[0]));
}

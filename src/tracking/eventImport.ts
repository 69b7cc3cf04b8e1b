import { createHash, randomUUID, type Hash } from 'node:crypto';
import { z } from 'zod';
import { countryOfAddress } from '../geo/countryOfAddress.js';
import { ApiError, zodDetails } from '../http/errors.js';
import { rfc3339Timestamp, wellFormedText } from '../management/fieldSchemas.js';
import { placementId } from '../placements/placementSchemas.js';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';
import type { Postgres } from '../store/postgres.js';
import { StoreUnavailableError } from '../store/storeUnavailable.js';
import { EventStoreUnavailableError } from '../store/clickhouseUnavailable.js';
import { CONVERSION_VALUE_MAX_USD } from './conversionSchemas.js';
import { eventCost, findLineItemPricing, type LineItemPricing, type PricingProblem } from './lineItemPricing.js';
import { NIL_UUID, NO_EVENT_CONTEXT, type TrackedEvent } from './trackedEvent.js';
import { NANOS_PER_USD } from '../money/nanoUsd.js';
import { NOT_UTF8_LINE, type NdjsonLine } from './ndjsonLines.js';
import type { ImportCeilings } from './importCeilings.js';
import type { ImportedRange } from './importedRanges.js';
import { classifyVisitor } from './visitor.js';
import { MS_PER_DAY } from '../utcDays.js';

/** One NDJSON line of POST /v1/admin/events/import. A field not listed here rejects the line, as everywhere. */
const importLine = z
  .strictObject({
    type: z.enum(['impression', 'click', 'conversion']),
    time: rfc3339Timestamp(),
    line_item_id: z.uuid(),
    placement_id: placementId,
    ip: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' }),
    user_agent: wellFormedText().max(2048).optional(),
    revenue_usd: z.number().nonnegative().max(CONVERSION_VALUE_MAX_USD, { error: 'must be at most 1,000,000' }).optional(),
  })
  .refine((line) => line.revenue_usd === undefined || line.type === 'conversion', {
    path: ['revenue_usd'],
    message: 'only conversions carry revenue',
  });

export interface ImportSummary {
  /** Lines stored as valid events. */
  accepted: number;
  /** Lines stored, classified as invalid traffic (kept for audit, not reported or billed). */
  invalid: number;
  /** Lines not stored: not JSON, bad fields, unknown line item or placement, no bid to price by. */
  rejected: number;
  /** Of `accepted`, lines over a billing ceiling: stored valid, at cost 0, with the reason in `unbilled`. */
  unbilled: number;
  /** Lines an earlier request with the same Idempotency-Key stored: not stored again. */
  already_imported: number;
  /** The first MAX_REPORTED_ERRORS rejected lines, 1-based. */
  errors: Array<{ line: number; message: string }>;
}

const MAX_REPORTED_ERRORS = 1000;
const FUTURE_TOLERANCE_MS = 5 * 60_000;
/**
 * How long events_v1 keeps an event (its TTL, clickhouse/0001_events.sql). An older one would be
 * counted in reports (the rollups keep no TTL) while the audit export could never show it, so it is
 * refused; this also keeps out times before 1970, which the rollups' days cannot hold.
 */
export const EVENT_RETENTION_DAYS = 400;
const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * MS_PER_DAY;

const pricingProblems: Record<PricingProblem, string> = {
  not_found: 'unknown line_item_id',
  no_bid: 'the line item has no bid to price its events by',
  unknown_currency: "the line item's currency has no USD rate",
};

/**
 * Lines per batch: a batch is a fixed range of line numbers (1 to 1000, 1001 to 2000, ...), however
 * many of its lines are stored, so a file sent again makes the same batches even where a line is
 * judged otherwise (its time against "now", a line item created since); memory stays bounded
 * whatever the body's size.
 */
const IMPORT_BATCH_LINES = 1000;
/** A range's digest without an import key: not asked for. */
const NO_DIGEST = Buffer.alloc(0);
/** What stands for a line that is not UTF-8 in its range's digest (such a line is refused, never stored). */
const NOT_UTF8_TEXT = '\u0000not UTF-8';
/** Lines handled between two yields to the event loop, so live pixels are answered during an import. */
const LINES_PER_YIELD = 100;

/**
 * Turns NDJSON lines into stored events, batch by batch: each line classified like live traffic
 * (address, and the user agent when the line has one: a source that recorded none is not called a
 * bot for it), priced by the line item's current bid and judged by the billing ceilings
 * (importCeilings.ts). Each event gets its own serve id: imports
 * have no serves, so duplicate and click-quality checks do not apply. When a batch cannot be stored
 * (or the body runs over its limit), the ApiError says up to which line the import is stored and,
 * with a key, which lines may be stored in part (a refused write can have reached events_v1).
 */
export async function importEvents(
  lines: AsyncIterable<NdjsonLine>,
  deps: {
    db: Postgres;
    traffic: TrafficClassifier;
    /**
     * Stores a batch, the events of one range of lines (possibly none): `judge` judges those of them
     * it stores by the billing ceilings and calls `write`, which stores them, while that judgement
     * holds (ImportCeilings.judgeAndStore); resolves to its events that were already stored (an
     * import with a key sent again), which are counted apart and never judged: their cost is in the
     * spend the ceilings read, and judging them again would count it twice.
     */
    store: (events: TrackedEvent[], range: ImportedRange, judge: (fresh: TrackedEvent[], write: () => Promise<void>) => Promise<void>) => Promise<TrackedEvent[] | void>;
    /**
     * The event id of a line (its number and text): an import with a key derives it, and its ranges
     * carry the SHA-256 of their lines; otherwise each id is random.
     */
    eventIdOf?: (line: number, text: string) => string;
    /** The billing ceilings each batch's valid events are judged by before it is stored. */
    ceilings: ImportCeilings;
  },
  nowMs: number,
): Promise<ImportSummary> {
  const pricingOf = memoize((lineItemId: string) => findLineItemPricing(deps.db, lineItemId));
  const publisherOf = memoize(async (placementId: string) => {
    const { rows } = await deps.db.query<{ publisher_id: string }>('SELECT publisher_id FROM placements WHERE id = $1', [placementId]);
    return rows[0]?.publisher_id;
  });
  let batch: TrackedEvent[] = [];
  let storedThroughLine = 0;
  let lineNumber = 0;
  const summary: ImportSummary = { accepted: 0, invalid: 0, unbilled: 0, rejected: 0, already_imported: 0, errors: [] };
  const reject = (line: number, message: string) => {
    summary.rejected += 1;
    if (summary.errors.length < MAX_REPORTED_ERRORS) summary.errors.push({ line, message });
  };
  let rangeText: Hash | undefined;
  /**
   * The lines of the batch being stored by an import with a key, which writes at once: a write
   * ClickHouse refuses may still have put its rows in events_v1 (clickhouseEventPipeline.ts,
   * completeRefused), so a 503 cannot call them not imported. Without a key a batch is spooled whole or not at all.
   */
  let inDoubt: ImportedRange | undefined;
  const storeBatch = async () => {
    const first = storedThroughLine + 1;
    const sha256 = rangeText?.digest() ?? NO_DIGEST;
    rangeText = undefined;
    const judge = (fresh: TrackedEvent[], write: () => Promise<void>) =>
      deps.ceilings.judgeAndStore(fresh, async () => {
        for (const event of fresh) if (event.unbilled !== '') summary.unbilled += 1;
        await write();
      });
    if (deps.eventIdOf && batch.length > 0) inDoubt = { first, last: lineNumber, sha256 };
    const already = await deps.store(batch, { first, last: lineNumber, sha256 }, judge);
    inDoubt = undefined;
    for (const event of already ?? []) {
      if (event.ivt === '') summary.accepted -= 1;
      else summary.invalid -= 1;
      summary.already_imported += 1;
    }
    batch = [];
    storedThroughLine = lineNumber;
  };
  const stopped = (error: unknown): never => {
    const known =
      error instanceof StoreUnavailableError
        ? new ApiError('unavailable', 'the database is unavailable; retry later')
        : error instanceof EventStoreUnavailableError
          ? new ApiError('unavailable', 'the event store is unavailable; retry later')
          : error;
    if (!(known instanceof ApiError)) throw error;
    const parts = storedThroughLine === 0 ? [] : [`lines 1 to ${storedThroughLine} are imported`];
    if (inDoubt && known.code === 'unavailable') {
      parts.push(`lines ${inDoubt.first} to ${inDoubt.last} may be imported in part: resending the file with the same Idempotency-Key completes them, each line once`);
    }
    throw new ApiError(known.code, `${known.message}; ${parts.length === 0 ? 'no line is imported' : parts.join('; ')}`, known.details);
  };

  try {
    for await (const raw of lines) {
      lineNumber += 1;
      if (lineNumber % LINES_PER_YIELD === 0) await new Promise((resolve) => setImmediate(resolve));
      if (deps.eventIdOf) {
        rangeText ??= createHash('sha256');
        rangeText.update(raw === NOT_UTF8_LINE ? NOT_UTF8_TEXT : raw).update('\n');
      }
      if (raw === NOT_UTF8_LINE) reject(lineNumber, 'not valid UTF-8');
      else {
        const event = await importLineEvent(raw.trim(), lineNumber);
        if (event) batch.push(event);
      }
      if (lineNumber % IMPORT_BATCH_LINES === 0) await storeBatch();
    }
    // The last lines; or, when the body ended at a range's end, the empty range after it, which an
    // import with a key records as where its body ended.
    if (deps.eventIdOf) rangeText ??= createHash('sha256');
    await storeBatch();
  } catch (error) {
    stopped(error);
  }
  return summary;

  async function importLineEvent(text: string, line: number): Promise<TrackedEvent | undefined> {
    if (text === '') return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      reject(line, 'not valid JSON');
      return undefined;
    }
    const parsed = importLine.safeParse(json);
    if (!parsed.success) {
      reject(line, zodDetails(parsed.error).map((detail) => `${detail.path || 'line'}: ${detail.message}`).join('; '));
      return undefined;
    }
    const fields = parsed.data;
    const time = Date.parse(fields.time);
    if (time > nowMs + FUTURE_TOLERANCE_MS) {
      reject(line, 'time: must not be in the future');
      return undefined;
    }
    if (time < nowMs - EVENT_RETENTION_MS) {
      reject(line, `time: older than the ${EVENT_RETENTION_DAYS} days raw events are kept`);
      return undefined;
    }
    const pricing: LineItemPricing | PricingProblem = await pricingOf(fields.line_item_id);
    if (typeof pricing === 'string') {
      reject(line, `line_item_id: ${pricingProblems[pricing]}`);
      return undefined;
    }
    const publisherId = await publisherOf(fields.placement_id);
    if (publisherId === undefined) {
      reject(line, 'placement_id: unknown placement');
      return undefined;
    }

    const visitor = classifyVisitor(deps.traffic, fields.ip, fields.user_agent, fields.user_agent !== undefined);
    const eventId = deps.eventIdOf ? deps.eventIdOf(line, text) : randomUUID();
    if (visitor.ivt === '') summary.accepted += 1;
    else summary.invalid += 1;
    return {
      event_id: eventId,
      event_time: time,
      type: fields.type,
      source: 'import',
      serve_id: randomUUID(),
      campaign_id: pricing.campaignId,
      line_item_id: pricing.lineItemId,
      creative_id: NIL_UUID,
      placement_id: fields.placement_id,
      publisher_id: publisherId,
      price_model: pricing.model,
      cost_nanos: visitor.ivt === '' ? eventCost(fields.type, pricing) : 0,
      revenue_nanos: Math.round((fields.revenue_usd ?? 0) * NANOS_PER_USD),
      click_id: fields.type === 'click' ? eventId : NIL_UUID,
      ip: visitor.ip.ip,
      ip_class: visitor.ip.ipClass,
      ip_network: visitor.ip.network,
      user_agent: visitor.userAgent,
      ivt: visitor.ivt,
      ...NO_EVENT_CONTEXT,
      country: countryOfAddress(visitor.ip.ip) ?? '',
      // An imported click has no signed price: the bid it was priced at stands in for one, so a
      // conversion reported on it later is billed at that, like one of a live click.
      price_nanos: pricing.priceNanos,
    };
  }
}

/** One lookup per distinct id within an import. */
function memoize<T>(lookup: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const results = new Map<string, Promise<T>>();
  return (key) => {
    let result = results.get(key);
    if (!result) {
      result = lookup(key);
      results.set(key, result);
    }
    return result;
  };
}

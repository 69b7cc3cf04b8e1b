import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';
import type { Postgres } from '../store/postgres.js';
import { eventCost, findLineItemPricing, type LineItemPricing, type PricingProblem } from './lineItemPricing.js';
import { NANOS_PER_USD, NIL_UUID, NO_EVENT_CONTEXT, type TrackedEvent } from './trackedEvent.js';
import { classifyVisitor } from './visitor.js';

/** One NDJSON line of POST /v1/admin/events/import. Fields not listed here are ignored. */
const importLine = z
  .object({
    type: z.enum(['impression', 'click', 'conversion']),
    time: z.iso.datetime({ offset: true }),
    line_item_id: z.uuid(),
    placement_id: z.string().min(1).max(128),
    ip: z.union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' }),
    user_agent: z.string().max(2048).optional(),
    revenue_usd: z.number().nonnegative().max(1e12).optional(),
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
  /** The first MAX_REPORTED_ERRORS rejected lines, 1-based. */
  errors: Array<{ line: number; message: string }>;
}

const MAX_REPORTED_ERRORS = 1000;
const FUTURE_TOLERANCE_MS = 5 * 60_000;

const pricingProblems: Record<PricingProblem, string> = {
  not_found: 'unknown line_item_id',
  no_bid: 'the line item has no bid to price its events by',
  unknown_currency: "the line item's currency has no USD rate",
};

/**
 * Turns an NDJSON body into events: each line classified like live traffic (address, and the user
 * agent when the line has one: a source that recorded none is not called a bot for it) and priced by
 * the line item's current bid. Each event gets its own serve id: imports have no serves, so duplicate
 * and click-quality checks do not apply.
 */
export async function importEvents(
  body: string,
  deps: { db: Postgres; traffic: TrafficClassifier },
  nowMs: number,
): Promise<{ events: TrackedEvent[]; summary: ImportSummary }> {
  const pricingOf = memoize((lineItemId: string) => findLineItemPricing(deps.db, lineItemId));
  const publisherOf = memoize(async (placementId: string) => {
    const { rows } = await deps.db.query<{ publisher_id: string }>('SELECT publisher_id FROM placements WHERE id = $1', [placementId]);
    return rows[0]?.publisher_id;
  });
  const events: TrackedEvent[] = [];
  const summary: ImportSummary = { accepted: 0, invalid: 0, rejected: 0, errors: [] };
  const reject = (line: number, message: string) => {
    summary.rejected += 1;
    if (summary.errors.length < MAX_REPORTED_ERRORS) summary.errors.push({ line, message });
  };

  const lines = body.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index]!.trim();
    if (text === '') continue;
    const lineNumber = index + 1;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      reject(lineNumber, 'not valid JSON');
      continue;
    }
    const parsed = importLine.safeParse(json);
    if (!parsed.success) {
      reject(lineNumber, parsed.error.issues.map((issue) => `${issue.path.join('.') || 'line'}: ${issue.message}`).join('; '));
      continue;
    }
    const line = parsed.data;
    const time = Date.parse(line.time);
    if (time > nowMs + FUTURE_TOLERANCE_MS) {
      reject(lineNumber, 'time: must not be in the future');
      continue;
    }
    const pricing: LineItemPricing | PricingProblem = await pricingOf(line.line_item_id);
    if (typeof pricing === 'string') {
      reject(lineNumber, `line_item_id: ${pricingProblems[pricing]}`);
      continue;
    }
    const publisherId = await publisherOf(line.placement_id);
    if (publisherId === undefined) {
      reject(lineNumber, 'placement_id: unknown placement');
      continue;
    }

    const visitor = classifyVisitor(deps.traffic, line.ip, line.user_agent, line.user_agent !== undefined);
    const eventId = randomUUID();
    events.push({
      event_id: eventId,
      event_time: time,
      type: line.type,
      source: 'import',
      serve_id: randomUUID(),
      campaign_id: pricing.campaignId,
      line_item_id: pricing.lineItemId,
      creative_id: NIL_UUID,
      placement_id: line.placement_id,
      publisher_id: publisherId,
      price_model: pricing.model,
      cost_nanos: visitor.ivt === '' ? eventCost(line.type, pricing) : 0,
      revenue_nanos: Math.round((line.revenue_usd ?? 0) * NANOS_PER_USD),
      click_id: line.type === 'click' ? eventId : NIL_UUID,
      ip: visitor.ip.ip,
      ip_class: visitor.ip.ipClass,
      ip_network: visitor.ip.network,
      user_agent: visitor.userAgent,
      ivt: visitor.ivt,
      ...NO_EVENT_CONTEXT,
    });
    if (visitor.ivt === '') summary.accepted += 1;
    else summary.invalid += 1;
  }
  return { events, summary };
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

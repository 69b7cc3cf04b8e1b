import { randomUUID } from 'node:crypto';
import { campaignInput } from '../src/management/campaignSchemas.js';
import { lineItemInput, type LineItemInput } from '../src/management/lineItemSchemas.js';
import { offTopicExchanges, topics } from './contextVocabulary.js';
import { flightAround, lineItemControls } from './deliveryControls.js';
import { seededRandom } from './seededRandom.js';

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

function pickSome<T>(random: () => number, list: readonly T[], count: number): T[] {
  const chosen = new Set<T>();
  while (chosen.size < Math.min(count, list.length)) chosen.add(pick(random, list));
  return [...chosen];
}

interface GeneratedLineItem {
  id: string;
  /** What an advertiser would send (compose's line_item). */
  input: Record<string, unknown>;
  /** The same after the management API's own schema: what it stores. */
  stored: LineItemInput;
  /** One per stored creative, in order. */
  creativeIds: string[];
}

export interface GeneratedCampaign {
  id: string;
  input: { name: string; brand_name: string; objective: string; starts_at?: string; ends_at?: string | null };
  objective: string | null;
  /** With `controls`: the campaign's flight, as stored (UTC). */
  startsAt: string | null;
  endsAt: string | null;
  lineItems: GeneratedLineItem[];
}

export interface CatalogShape {
  lineItems: number;
  lineItemsPerCampaign: number;
  /** Placement ids line items may include or exclude. */
  placements: readonly string[];
  seed?: number;
  /**
   * Issue 14's delivery controls on top of the same catalog (bench/deliveryControls.ts): flights,
   * lifetime budgets, even/asap pacing, frequency caps, countries, dayparts. They come from a random
   * stream of their own, so keywords, bids and creatives are those of the catalog without them.
   */
  controls?: { nowMs: number };
}

/**
 * Campaigns of several line items each, spread over the topics: keyword targeting (1 to 3 include
 * keywords, some excludes), placement targeting on a third of them, a CPC/tCPM/CPA mix of bids and
 * one or two creatives. Every line item passes the management API's LineItemInput schema, so what
 * bulk SQL stores is exactly what the API would have stored.
 */
export function generateCatalog(shape: CatalogShape): GeneratedCampaign[] {
  const random = seededRandom(shape.seed ?? 7);
  const controlRandom = seededRandom((shape.seed ?? 7) + 1_000);
  const campaigns: GeneratedCampaign[] = [];
  for (let made = 0; made < shape.lineItems; ) {
    const topic = topics[campaigns.length % topics.length]!;
    const brand = pick(random, topic.brands);
    const objective = pick(random, ['brand_awareness', 'traffic', 'conversions', 'consideration']);
    const flight = shape.controls ? flightAround(controlRandom, shape.controls.nowMs) : undefined;
    const campaign = { name: `${brand} ${topic.name} #${campaigns.length + 1}`, brand_name: brand, objective, ...flight };
    const lineItems: GeneratedLineItem[] = [];
    for (let index = 0; index < shape.lineItemsPerCampaign && made < shape.lineItems; index++, made++) {
      const plain = lineItemFor(random, topic, brand, shape.placements, made);
      const input = shape.controls ? withControls(plain, lineItemControls(controlRandom, plain.budget.daily, shape.controls.nowMs)) : plain;
      const stored = lineItemInput.parse(input);
      lineItems.push({ id: randomUUID(), input, stored, creativeIds: (stored.creatives ?? []).map(() => randomUUID()) });
    }
    campaigns.push({
      id: randomUUID(),
      input: campaign,
      objective: campaignInput.shape.objective.parse(objective) ?? null,
      startsAt: flight ? campaignInput.shape.starts_at.parse(flight.starts_at) ?? null : null,
      endsAt: flight ? campaignInput.shape.ends_at.parse(flight.ends_at) ?? null : null,
      lineItems,
    });
  }
  return campaigns;
}

function lineItemFor(random: () => number, topic: (typeof topics)[number], brand: string, placements: readonly string[], ordinal: number) {
  const roll = random();
  const bids =
    roll < 0.45
      ? { bid_type: 'cpc', bid_value: round2(0.2 + random() * 1.8) }
      : roll < 0.9
        ? { bid_type: 'cpm', bid_value: round2(1 + random() * 14) }
        : { bid_type: 'cpa', bid_value: round2(5 + random() * 45) };
  const otherTopic = pick(random, topics);
  const targeting: Record<string, unknown> = {
    keywords: {
      include: pickSome(random, topic.keywords, 1 + Math.floor(random() * 3)),
      ...(random() < 0.3 && otherTopic !== topic ? { exclude: [pick(random, otherTopic.keywords)] } : {}),
    },
  };
  const placementRoll = random();
  if (placements.length > 0 && placementRoll < 0.2) targeting.placements = { include: pickSome(random, placements, 3) };
  else if (placements.length > 0 && placementRoll < 0.33) targeting.placements = { exclude: pickSome(random, placements, 2) };
  const keyword = (targeting.keywords as { include: string[] }).include[0]!;
  const creatives = Array.from({ length: 1 + Math.floor(random() * 2) }, (_, index) => ({
    format: 'contextual_card',
    title: `${brand}: ${keyword} picks for you`.slice(0, 90),
    body: `Hand-picked ${keyword} gear and guides from ${brand}. Free returns within 30 days.`,
    cta: index === 0 ? 'Learn more' : 'Shop now',
    destination_url: `https://www.example.com/${topic.name.replace(/\s+/g, '-')}/landing?li=${ordinal}&v=${index}`,
    ...(random() < 0.5 ? { image_url: `https://cdn.example.com/creatives/${ordinal}-${index}.jpg` } : {}),
  }));
  return {
    title: `${topic.name} ${bids.bid_type.toUpperCase()} line ${ordinal + 1}`,
    objective: bids.bid_type === 'cpm' ? 'brand_awareness' : 'traffic',
    primary_kpi: bids.bid_type === 'cpm' ? 'impressions' : bids.bid_type === 'cpc' ? 'clicks' : 'conversions',
    budget: { daily: 1000 + Math.floor(random() * 9000), currency: 'USD' },
    bids,
    targeting,
    creatives,
  };
}

function withControls(input: ReturnType<typeof lineItemFor>, controls: ReturnType<typeof lineItemControls>) {
  return {
    ...input,
    budget: { ...input.budget, ...controls.budget },
    targeting: { ...input.targeting, ...controls.targeting },
    ...(controls.frequency_cap ? { frequency_cap: controls.frequency_cap } : {}),
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export interface ServeRequestBody {
  placement_id: string;
  context: { query: string; response: string };
  /** The end user (serve-controls): frequency caps need user.id, country targeting user.ip. */
  user?: { id: string; ip: string };
}

/** Serve requests as a chat publisher's backend sends them: 90% on a topic, 10% small talk. */
export function generateServeRequests(count: number, placements: readonly string[], seed = 11): ServeRequestBody[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const placement_id = pick(random, placements);
    if (random() < 0.1) return { placement_id, context: pick(random, offTopicExchanges) };
    const topic = pick(random, topics);
    const turn = Math.floor(random() * topic.queries.length);
    return { placement_id, context: { query: topic.queries[turn]!, response: topic.responses[turn % topic.responses.length]! } };
  });
}

import { convertToUsd } from '../../../src/money/usdRates.js';
import { FieldProblems } from '../fieldProblems.js';
import type { FrequencyCap, Targeting } from './advertiserApi.js';
import type { weekdays as apiWeekdays } from '../../../src/management/daypartSchema.js';

/**
 * A comma-separated list as the API's array; nothing typed is no list at all. The one split of a
 * list field: the bodies sent (composeBody, targetingBody) and the entries a 422 names (Field's
 * `list`: `keywords.include.2` is "Keyword 3 (…)") both come from it, so a detail's index names
 * the entry that was sent in that place; a split of their own in either would make them drift.
 */
export function listOf(text: string): string[] | undefined {
  const items = text.split(',').map((item) => item.trim()).filter(Boolean);
  return items.length > 0 ? items : undefined;
}

/** The parts of the targeting the campaign page edits, as typed. */
export interface TargetingEdits {
  keywordsInclude: string;
  keywordsExclude: string;
  placementsInclude: string;
  languages: string;
  countriesInclude: string;
  countriesExclude: string;
  /** Semantic matching's opt-in (the box) and its threshold as typed (empty: the service's default). */
  semantic: boolean;
  minSimilarity: string;
  /** The dayparts: a time zone and its windows, as typed; no window is no dayparts (any time). */
  dayparts: DaypartEdits;
}

type Weekday = (typeof apiWeekdays)[number];

/** The API's weekdays (daypartSchema.ts) in its order, with the label of each day's box. */
export const weekdays = [
  ['mon', 'Mon'], ['tue', 'Tue'], ['wed', 'Wed'], ['thu', 'Thu'], ['fri', 'Fri'], ['sat', 'Sat'], ['sun', 'Sun'],
] as const satisfies readonly (readonly [Weekday, string])[];

export interface DaypartWindowEdits {
  days: Weekday[];
  start: string;
  end: string;
}

export interface DaypartEdits {
  timezone: string;
  windows: DaypartWindowEdits[];
}

/** The form's fields as the loaded targeting fills them. */
export function targetingEdits(targeting: Targeting): TargetingEdits {
  return {
    keywordsInclude: (targeting.keywords?.include ?? []).join(', '),
    keywordsExclude: (targeting.keywords?.exclude ?? []).join(', '),
    placementsInclude: (targeting.placements?.include ?? []).join(', '),
    languages: (targeting.languages ?? []).join(', '),
    countriesInclude: (targeting.countries?.include ?? []).join(', '),
    countriesExclude: (targeting.countries?.exclude ?? []).join(', '),
    semantic: targeting.semantic?.enabled ?? false,
    minSimilarity: targeting.semantic?.min_similarity === undefined ? '' : String(targeting.semantic.min_similarity),
    dayparts: {
      timezone: targeting.dayparts?.timezone ?? '',
      windows: (targeting.dayparts?.windows ?? []).map((window) => ({ days: window.days as Weekday[], start: window.start, end: window.end })),
    },
  };
}

/**
 * The dayparts as the PUT body has them, or none when no window is left (any time: a time zone
 * without windows means nothing, so removing the last window removes the dayparts). Days go in
 * the week's order; the API judges the rest (the zone, HH:MM, an end after its start, a day
 * ticked) and its details name the field they are about (`dayparts.windows.0.end`).
 */
function daypartsPart(edits: DaypartEdits): Targeting['dayparts'] {
  if (edits.windows.length === 0) return undefined;
  return {
    timezone: edits.timezone.trim(),
    windows: edits.windows.map((window) => ({
      days: weekdays.map(([day]) => day).filter((day) => window.days.includes(day)),
      start: window.start.trim(),
      end: window.end.trim(),
    })),
  };
}

/** An include/exclude group without its empty lists; undefined when nothing is left. */
export function group(lists: { include?: string[]; exclude?: string[] }) {
  const kept = Object.fromEntries(Object.entries(lists).filter(([, list]) => list !== undefined && list.length > 0));
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * The semantic part as a form has it: the box turns matching on or off, and a typed threshold
 * (a decimal comma read as a point) goes with it; empty leaves the service's default. A line item
 * that never had the part and is not opted in gets none (off when absent: openapi.yaml). The API
 * judges the range (0 to 1); what is not a number is refused here, beside the field at `path`
 * (a new line item's is under `targeting.`).
 */
export function semanticPart(
  loaded: Targeting['semantic'], edits: Pick<TargetingEdits, 'semantic' | 'minSimilarity'>, path = 'semantic.min_similarity',
): Targeting['semantic'] {
  const typed = edits.minSimilarity.trim().replace(',', '.');
  if (!edits.semantic && loaded === undefined && typed === '') return undefined;
  if (typed !== '' && !/^\d*\.?\d+$/.test(typed)) {
    throw new FieldProblems('The minimum similarity could not be read; nothing was saved.', [
      { path, message: 'enter a number from 0 to 1, for example 0.55' },
    ]);
  }
  return { enabled: edits.semantic, ...(typed !== '' ? { min_similarity: Number(typed) } : {}) };
}

/**
 * The PUT targeting body. The route replaces the whole object (docs/management.md), so every part
 * the form does not edit (placement exclusions, and any part a later API adds) goes back exactly
 * as it was loaded; only what the form shows is taken from the form.
 */
export function targetingBody(loaded: Targeting, edits: TargetingEdits): Targeting {
  const { keywords: _keywords, placements, languages: _languages, countries: _countries, semantic: loadedSemantic, dayparts: _dayparts, ...untouched } = loaded;
  const keywords = group({ include: listOf(edits.keywordsInclude), exclude: listOf(edits.keywordsExclude) });
  const placementGroup = group({ ...placements, include: listOf(edits.placementsInclude) });
  const languages = listOf(edits.languages);
  const countries = group({ include: listOf(edits.countriesInclude), exclude: listOf(edits.countriesExclude) });
  const semantic = semanticPart(loadedSemantic, edits);
  const dayparts = daypartsPart(edits.dayparts);
  return {
    ...untouched,
    ...(keywords ? { keywords } : {}),
    ...(placementGroup ? { placements: placementGroup } : {}),
    ...(languages ? { languages } : {}),
    ...(countries ? { countries } : {}),
    ...(semantic ? { semantic } : {}),
    ...(dayparts ? { dayparts } : {}),
  };
}

/** The countries and semantic matching in words, for a page that shows them as text (lineItemFacts.ts). */
export function countriesAndSemantic(targeting: Targeting): string[] {
  const parts: string[] = [];
  if (targeting.countries?.include?.length) parts.push(`countries: ${targeting.countries.include.join(', ')}`);
  if (targeting.countries?.exclude?.length) parts.push(`countries avoided: ${targeting.countries.exclude.join(', ')}`);
  if (targeting.semantic) {
    const similarity = targeting.semantic.min_similarity === undefined ? 'service default similarity' : `min similarity ${targeting.semantic.min_similarity}`;
    parts.push(`semantic matching ${targeting.semantic.enabled ? `on (${similarity})` : 'off'}`);
  }
  return parts;
}

/** The dayparts in words, for a page that shows them as text (lineItemFacts.ts); none when any time. */
export function daypartsText(targeting: Targeting): string[] {
  if (!targeting.dayparts) return [];
  const windows = targeting.dayparts.windows.map((window) => `${window.days.join(' ')} ${window.start}–${window.end}`);
  return [`dayparts (${targeting.dayparts.timezone}): ${windows.join('; ')}`];
}

/** What the targeting holds beyond the form's fields, in words: kept on save, edited through the API. */
export function untouchedTargeting(targeting: Targeting): string[] {
  return targeting.placements?.exclude?.length ? [`placements avoided: ${targeting.placements.exclude.join(', ')}`] : [];
}

/** An amount in USD as the currency question says it: cents from a dollar up, two significant digits below. */
function aboutUsd(usd: number): string {
  return usd.toLocaleString('en-US', usd >= 1 ? { maximumFractionDigits: 2 } : { maximumSignificantDigits: 2 });
}

/** The bid in its currency, with its value in USD when that is another currency. */
function bidIn(bid: number, currency: string): string {
  const usd = convertToUsd(bid, currency);
  return currency === 'USD' || usd === undefined ? `${bid} ${currency}` : `${bid} ${currency}, about ${aboutUsd(usd)} USD`;
}

/**
 * What saving the budget in `typed` currency does to the stored bid, in words, or undefined when it
 * does nothing to it. `bid_value` is in the budget's currency (USD without a budget) and is not
 * converted when the currency changes (docs/management.md): a 150 JPY bid (0.96 USD) became a
 * 150 USD bid with one word changed on the budget form, and nothing said so (try37 M1). A code
 * the service has no rate for is not asked about: the API refuses it and nothing changes.
 */
export function bidRepricing(bid: number, current: string, typed: string): string | undefined {
  const next = typed.trim().toUpperCase();
  if (next === current || convertToUsd(bid, next) === undefined) return undefined;
  return `Your bid of ${bid} will then be ${bidIn(bid, next)} (now ${bidIn(bid, current)}).`;
}

/** The windows of a frequency cap as the form offers them (UTC, as serving counts them: docs/serving.md). */
export const frequencyCapWindows = [
  ['hour', 'Clock hour (UTC)'],
  ['day', 'Day (UTC)'],
  ['week', 'Week (UTC, from Monday)'],
  ['lifetime', 'Ever (no window)'],
] as const satisfies readonly (readonly [FrequencyCap['per'], string])[];

const perWindow: Record<FrequencyCap['per'], string> = {
  hour: 'per user per clock hour (UTC)',
  day: 'per user per day (UTC)',
  week: 'per user per week (UTC, from Monday)',
  lifetime: 'per user, ever',
};

/** What a frequency cap allows, in words: "at most 3 impressions per user per day (UTC)". */
export function frequencyCapLimit(cap: FrequencyCap): string {
  const impressions = cap.impressions === 1 ? '1 impression' : `${cap.impressions.toLocaleString('en-US')} impressions`;
  return `at most ${impressions} ${perWindow[cap.per]}`;
}

/**
 * A frequency cap in words, with the rule that makes a line item silently undeliverable on a
 * publisher that sends no `user.id`: a capped line item is never served without one (selectAd.ts
 * `no_user_id`), since that serve could not be counted.
 */
export function frequencyCapText(cap: FrequencyCap | null): string {
  if (cap === null) return 'No frequency cap: shown to any reader, with or without a user id.';
  return `Frequency cap: ${frequencyCapLimit(cap)}; never shown to requests that do not send a user id.`;
}

/**
 * The PATCH body's frequency_cap: null for an empty count (no cap), or the cap. A count is digits
 * only: anything else is refused here, beside the field, rather than sent as text the API would
 * refuse in zod's words; the API judges the range (1 to 1,000,000). `path` is where the form shows
 * the cap's details (`line_item.frequency_cap` on *New campaign*).
 */
export function frequencyCapBody(impressions: string, per: string, path = 'frequency_cap'): { frequency_cap: { impressions: number; per: string } | null } {
  const typed = impressions.trim();
  if (typed === '') return { frequency_cap: null };
  if (!/^\d+$/.test(typed)) {
    throw new FieldProblems('The frequency cap could not be read; nothing was saved.', [
      { path: `${path}.impressions`, message: 'enter a whole number of impressions as digits, for example 3 (no thousands separators)' },
    ]);
  }
  return { frequency_cap: { impressions: Number(typed), per } };
}

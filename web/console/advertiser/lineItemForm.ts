import { html } from 'htm/preact';
import { api, ApiFailure } from '../api.js';
import { readAmounts } from '../amountInput.js';
import { FieldProblems, type ErrorDetail } from '../fieldProblems.js';
import type { Session } from '../session.js';
import { Field, Select } from '../ui.js';
import { frequencyCapBody, frequencyCapWindows, group, listOf, semanticPart } from './lineItemEdits.js';
import { CountryFields, LifetimeAndPacingFields, SemanticFields } from './budgetAndTargetingFields.js';

export const bidTypes = [['CPC', 'CPC: per valid click'], ['tCPM', 'tCPM: per thousand valid impressions'], ['CPA', 'CPA: per conversion']] as const;

/**
 * A new line item as typed: the one of *New campaign* (under `line_item` of the compose body) and
 * of a campaign's *Add a line item* (the body of POST campaigns/{id}/line-items). One home, so the
 * two offer the same fields, the frequency cap among them, and read them the same way.
 */
export const newLineItem = {
  line_title: '', daily: '', currency: 'USD', lifetime: '', pacing: 'even', bid_type: 'CPC', bid_value: '', keywords: '', placements: '',
  countries_include: '', countries_exclude: '', semantic: false, min_similarity: '',
  cap_impressions: '', cap_per: 'day', title: '', body: '', cta: '', destination_url: '', image_url: '',
};
export type NewLineItem = typeof newLineItem;
/** The fields typed as text (all but the semantic box). */
export type TextField = { [Name in keyof NewLineItem]: NewLineItem[Name] extends string ? Name : never }[keyof NewLineItem];

/** The paths of a line item's fields under `at` ('line_item.' in compose, '' on its own). */
function lineItemPaths(at: string) {
  return {
    title: `${at}title`, daily: `${at}budget.daily`, currency: `${at}budget.currency`, lifetime: `${at}budget.lifetime`, pacing: `${at}budget.pacing`,
    bidType: `${at}bids.bid_type`, bidValue: `${at}bids.bid_value`,
    keywords: `${at}targeting.keywords.include`, placements: `${at}targeting.placements.include`,
    countriesInclude: `${at}targeting.countries.include`, countriesExclude: `${at}targeting.countries.exclude`, minSimilarity: `${at}targeting.semantic.min_similarity`,
    cap: `${at}frequency_cap`,
    capImpressions: `${at}frequency_cap.impressions`, capPer: `${at}frequency_cap.per`,
    creative: (name: string) => `${at}creatives.0.${name}`,
  };
}

/** Every path the line item's fields show a detail beside; ErrorMessage lists any other. */
export function lineItemFieldPaths(at: string): string[] {
  const paths = lineItemPaths(at);
  return [
    paths.title, paths.daily, paths.currency, paths.lifetime, paths.pacing, paths.bidType, paths.bidValue, paths.keywords, paths.placements,
    paths.countriesInclude, paths.countriesExclude, paths.minSimilarity, paths.capImpressions, paths.capPer,
    ...['title', 'body', 'cta', 'destination_url', 'image_url'].map(paths.creative),
  ];
}

/**
 * The line item's body: only what was filled in, so that the API's rules (not this form's) decide.
 * Amounts and the cap's count are read here (a decimal comma is fine); one that cannot be read is
 * never sent as text the API would refuse in zod's words: FieldProblems beside its field instead.
 * `standIns` sends 1 for each amount and no cap, to ask the API about the other fields meanwhile.
 */
function lineItemBody(form: NewLineItem, at: string, standIns: boolean) {
  const paths = lineItemPaths(at);
  const typed = {
    ...(form.daily.trim() !== '' ? { [paths.daily]: form.daily } : {}),
    ...(form.bid_value.trim() !== '' ? { [paths.bidValue]: form.bid_value } : {}),
    ...(form.lifetime.trim() !== '' ? { [paths.lifetime]: form.lifetime } : {}),
  };
  // Both reads are tried before anything is thrown, so an unreadable amount and cap show together.
  const problems: FieldProblems[] = [];
  const attempt = <T>(read: () => T, otherwise: T): T => {
    try {
      return read();
    } catch (failure) {
      if (!(failure instanceof FieldProblems)) throw failure;
      problems.push(failure);
      return otherwise;
    }
  };
  const amounts = standIns ? Object.fromEntries(Object.keys(typed).map((path) => [path, 1])) : attempt(() => readAmounts(typed), {});
  const cap = standIns ? null : attempt(() => frequencyCapBody(form.cap_impressions, form.cap_per, paths.cap).frequency_cap, null);
  const semantic = standIns
    ? (form.semantic ? { enabled: true } : undefined)
    : attempt(() => semanticPart(undefined, { semantic: form.semantic, minSimilarity: form.min_similarity }, paths.minSimilarity), undefined);
  if (problems.length > 0) {
    const message = problems.length === 1 ? problems[0]!.message : 'Some fields could not be read; nothing was saved.';
    throw new FieldProblems(message, problems.flatMap((problem) => problem.details));
  }
  const keywords = listOf(form.keywords);
  const placements = listOf(form.placements);
  const countries = group({ include: listOf(form.countries_include), exclude: listOf(form.countries_exclude) });
  const targeting = {
    ...(keywords ? { keywords: { include: keywords } } : {}),
    ...(placements ? { placements: { include: placements } } : {}),
    ...(countries ? { countries } : {}),
    ...(semantic ? { semantic } : {}),
  };
  // A budget is sent once any of its fields is given: pacing chosen alone is not dropped, and the
  // API then says beside *Daily budget* that it is needed.
  const budgetTyped = form.daily.trim() !== '' || form.lifetime.trim() !== '' || form.pacing !== newLineItem.pacing;
  const creativeTyped = [form.title, form.body, form.cta, form.destination_url, form.image_url].some((value) => value.trim() !== '');
  return {
    title: form.line_title,
    ...(budgetTyped
      ? { budget: { daily: amounts[paths.daily], currency: form.currency, ...(paths.lifetime in amounts ? { lifetime: amounts[paths.lifetime] } : {}), pacing: form.pacing } }
      : {}),
    ...(form.bid_value.trim() !== '' ? { bids: { bid_type: form.bid_type, bid_value: amounts[paths.bidValue] } } : {}),
    ...(Object.keys(targeting).length > 0 ? { targeting } : {}),
    ...(cap ? { frequency_cap: cap } : {}),
    ...(creativeTyped
      ? {
          creatives: [{
            format: 'contextual_card', title: form.title, body: form.body, cta: form.cta, destination_url: form.destination_url,
            ...(form.image_url.trim() !== '' ? { image_url: form.image_url } : {}),
          }],
        }
      : {}),
  };
}

/**
 * The body `wrap` makes of the line item (compose's, or the line item alone), or, when an amount or
 * the cap's count cannot be read, every problem at once: those (from this form) and the other
 * fields' (from POST .../validate, asked with 1 standing in for each amount and no cap, which
 * stores nothing), so that an empty title or a javascript: URL is not shown only on a second submit.
 * `at` is where the line item's details sit in the validate answer ('line_item.'), `shownAt` where
 * this form shows them.
 */
export async function lineItemOrProblems<Body>(
  session: Session, form: NewLineItem, shownAt: string, wrap: (lineItem: ReturnType<typeof lineItemBody>, standIns: boolean) => { body: Body; validate: unknown },
): Promise<Body> {
  try {
    return wrap(lineItemBody(form, shownAt, false), false).body;
  } catch (failure) {
    if (!(failure instanceof FieldProblems)) throw failure;
    const mine = new Set(failure.details.map((detail) => detail.path));
    const standIn = wrap(lineItemBody(form, shownAt, true), true).validate;
    const others = await api(session, 'POST', '/v1/advertiser/campaigns/validate', standIn).then(
      () => [],
      (answer: unknown) => (answer instanceof ApiFailure && answer.status === 422 ? answer.details.map((detail) => shownPath(detail, shownAt)) : []),
    );
    const paths = lineItemPaths(shownAt);
    // The stand-ins' own paths (each unreadable amount, the cap, the threshold) are judged by this form alone.
    const judgedHere = [...mine, paths.cap, paths.capImpressions, paths.capPer, paths.minSimilarity];
    throw new FieldProblems(failure.message, [...failure.details, ...others.filter((detail) => !judgedHere.includes(detail.path))]);
  }
}

/** A validate detail (always under line_item.) at the path this form shows it: shownAt in place of line_item. */
function shownPath(detail: ErrorDetail, shownAt: string): ErrorDetail {
  return detail.path.startsWith('line_item.') ? { ...detail, path: shownAt + detail.path.slice('line_item.'.length) } : detail;
}

type FieldOf = (name: TextField) => { value: string; onInput(value: string): void; error: unknown };

/**
 * The line item's own fields: title, budget (lifetime and pacing too), bids, targeting (countries
 * and semantic matching too) and frequency cap. The fields a line item's page edits as well come
 * from their one home (budgetAndTargetingFields.ts); `onSemantic` sets the semantic box.
 */
export function LineItemFields({ field, at, form, onSemantic }: { field: FieldOf; at: string; form: NewLineItem; onSemantic(enabled: boolean): void }) {
  const paths = lineItemPaths(at);
  const text = (name: TextField) => {
    const { value, onInput } = field(name);
    return { value, onInput };
  };
  return html`<div class="grid">
      <${Field} label="Line item title" path=${paths.title} ...${field('line_title')} />
      <${Field} label="Daily budget" path=${paths.daily} type="text" hint="For example 50" ...${field('daily')} />
      <${Field} label="Budget currency" path=${paths.currency} hint="ISO 4217, e.g. USD or EUR; also the bid's currency" ...${field('currency')} />
      <${LifetimeAndPacingFields} lifetime=${text('lifetime')} pacing=${text('pacing')} paths=${paths} error=${field('lifetime').error} />
      <${Select} label="Bid type" path=${paths.bidType} options=${bidTypes} ...${field('bid_type')} />
      <${Field} label="Bid value" path=${paths.bidValue} ...${field('bid_value')} />
      <${Field} label="Keywords to match" path=${paths.keywords} hint="Comma-separated; empty matches every conversation." list=${{ noun: 'Keyword', entries: listOf(form.keywords) ?? [] }} ...${field('keywords')} />
      <${Field} label="Placements to run on" path=${paths.placements} hint="Comma-separated placement ids; empty means all." list=${{ noun: 'Placement', entries: listOf(form.placements) ?? [] }} ...${field('placements')} />
      <${CountryFields} include=${text('countries_include')} exclude=${text('countries_exclude')}
        paths=${{ include: paths.countriesInclude, exclude: paths.countriesExclude }} error=${field('countries_include').error} />
      <${Field} label="Frequency cap: impressions per user (optional)" path=${paths.capImpressions} hint="1 to 1,000,000; empty: no cap" ...${field('cap_impressions')} />
      <${Select} label="Frequency cap: time window" path=${paths.capPer} options=${frequencyCapWindows} ...${field('cap_per')} />
    </div>
    <p class="hint">A frequency cap counts the publisher's <code>user.id</code>: a capped line item is never shown to requests that do not send one.</p>
    <${SemanticFields} enabled=${form.semantic} onEnabled=${onSemantic} minSimilarity=${text('min_similarity')} path=${paths.minSimilarity} error=${field('min_similarity').error} />`;
}

/** The first creative's fields (a contextual card); all empty: none is sent. */
export function CreativeFields({ field, at }: { field: FieldOf; at: string }) {
  const path = lineItemPaths(at).creative;
  return html`<div class="grid">
      <${Field} label="Title" path=${path('title')} hint="Up to 90 characters" ...${field('title')} />
      <${Field} label="Call to action" path=${path('cta')} hint="Up to 30 characters" ...${field('cta')} />
      <${Field} label="Destination URL" path=${path('destination_url')} type="url" ...${field('destination_url')} />
      <${Field} label="Image URL (optional)" path=${path('image_url')} type="url" ...${field('image_url')} />
    </div>
    <${Field} label="Body" path=${path('body')} multiline hint="Up to 300 characters" ...${field('body')} />`;
}

import { html } from 'htm/preact';
import type { LineItem } from './advertiserApi.js';
import { bidTypes } from './lineItemForm.js';
import { countriesAndSemantic, daypartsText, untouchedTargeting } from './lineItemEdits.js';
import { pacings } from './budgetAndTargetingFields.js';


function amount(value: number, currency: string): string {
  return `${value.toLocaleString('en-US', { maximumFractionDigits: 6 })} ${currency}`;
}

function budgetText(budget: LineItem['budget']): string {
  if (budget === null) return 'Not set (needed to activate)';
  const lifetime = budget.lifetime === null ? 'no lifetime budget' : `${amount(budget.lifetime, budget.currency)} over its life`;
  const pacing = pacings.find(([value]) => value === budget.pacing)?.[1] ?? budget.pacing;
  return `${amount(budget.daily, budget.currency)} a day; ${lifetime}; pacing ${pacing.charAt(0).toLowerCase()}${pacing.slice(1)}`;
}

function bidsText(item: LineItem): string {
  if (item.bids === null) return 'Not set (needed to activate)';
  const type = bidTypes.find(([value]) => value.toLowerCase() === item.bids!.bid_type.toLowerCase())?.[1] ?? item.bids.bid_type;
  return `${amount(item.bids.bid_value, item.budget?.currency ?? 'USD')}, ${type}`;
}

/** A list as the targeting holds it; an empty or missing one is said as what it means. */
function listText(list: string[] | undefined, empty: string): string {
  return list && list.length > 0 ? list.join(', ') : empty;
}

/**
 * What a line item is set to, for a key that may not edit it (no `campaigns` permission): the
 * facts the edit forms would show, as text, so that a reporting user can read a campaign's budget,
 * bids and targeting (con39: the forms went and nothing replaced them). The frequency cap is said
 * under the line item's heading for every key.
 */
export function LineItemFacts({ item }: { item: LineItem }) {
  const { targeting } = item;
  const others = [...countriesAndSemantic(targeting), ...daypartsText(targeting), ...untouchedTargeting(targeting)];
  return html`<div class="card" data-testid="line-item-facts">
    <h3>Budget, bids and targeting</h3>
    <dl class="facts">
      <dt>Budget</dt><dd>${budgetText(item.budget)}</dd>
      <dt>Bid</dt><dd>${bidsText(item)}</dd>
      <dt>Keywords to match</dt><dd>${listText(targeting.keywords?.include, 'Any conversation')}</dd>
      <dt>Keywords to avoid</dt><dd>${listText(targeting.keywords?.exclude, 'None')}</dd>
      <dt>Placements to run on</dt><dd>${listText(targeting.placements?.include, 'Every placement')}</dd>
      <dt>Languages</dt><dd>${listText(targeting.languages, 'Any language')}</dd>
      ${others.length > 0 && html`<dt>Also</dt>${others.map((part) => html`<dd>${part}</dd>`)}`}
    </dl>
  </div>`;
}

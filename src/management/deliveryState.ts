import type { IndexedDestinations } from '../serving/indexedDestinations.js';
import { budgetsInNanos } from '../serving/adIndex.js';
import { convertToUsd } from '../money/usdRates.js';
import { deliveryStoppedBy } from '../money/billingCeilingRule.js';
import type { Budget } from './lineItemSchemas.js';

/**
 * A line item as the routes answer with it: with `delivery_stopped_by`, judged from this instance's
 * serving index (its spend and price as pacing keeps them, synced from ClickHouse every
 * PACING_SYNC_MS and moved to a new UTC month at its first second, as a serve moves them) against
 * the budgets the answer itself shows: a write's answer (a raised lifetime budget) is judged by what
 * it stored, which the index applies a moment later. Null for a line item the index does not hold
 * (draft, paused, completed, or not servable), whose status or creatives say why it does not deliver.
 */
export function withDeliveryState(indexed: Pick<IndexedDestinations, 'indexed'>) {
  return <T extends { id: string; budget?: Budget | null }>(lineItem: T) => {
    const entry = indexed.indexed(lineItem.id, Date.now());
    if (entry === undefined) return { ...lineItem, delivery_stopped_by: null };
    const budget = lineItem.budget;
    const shown = budget
      ? budgetsInNanos({ budget_daily: String(budget.daily), budget_currency: budget.currency, budget_lifetime: budget.lifetime === null ? null : String(budget.lifetime) }, convertToUsd)
      : undefined;
    const budgets = typeof shown === 'object' ? shown : entry;
    return { ...lineItem, delivery_stopped_by: deliveryStoppedBy({ budgetNanos: budgets.budgetNanos, lifetimeBudgetNanos: budgets.lifetimeBudgetNanos, spend: entry.spend, priceNanos: entry.priceNanos }) };
  };
}

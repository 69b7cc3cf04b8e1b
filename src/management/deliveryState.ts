import type { IndexedDestinations } from '../serving/indexedDestinations.js';
import { deliveryStoppedBy } from '../money/billingCeilingRule.js';

/**
 * A line item as the routes answer with it: with `delivery_stopped_by`, read from this instance's
 * serving index (its budgets and spend as pacing keeps them, synced from ClickHouse every
 * PACING_SYNC_MS): null for a line item the index does not hold (draft, paused, completed, or not
 * servable), whose status or creatives say why it does not deliver.
 */
export function withDeliveryState(indexed: Pick<IndexedDestinations, 'indexed'>) {
  return <T extends { id: string }>(lineItem: T) => {
    const entry = indexed.indexed(lineItem.id);
    return { ...lineItem, delivery_stopped_by: entry === undefined ? null : deliveryStoppedBy(entry) };
  };
}

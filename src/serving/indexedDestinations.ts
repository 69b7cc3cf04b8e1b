import type { AdIndex, LineItemEntry } from './adIndex.js';

/**
 * The click destinations of every creative in the current serving index, by creative and line item:
 * where a click goes when Postgres cannot be asked and the click cache has never seen the creative.
 */
export class IndexedDestinations {
  private byCreative = new Map<string, string>();

  /** Called with each new index; a failed rebuild keeps the previous one, and these with it. */
  replace(index: AdIndex): void {
    const next = new Map<string, string>();
    for (const lineItem of index.lineItems) {
      for (const creative of lineItem.creatives) next.set(`${creative.id}/${lineItem.id}`, creative.destinationUrl);
    }
    this.byCreative = next;
  }

  /** Follows an incremental patch: the entries that left the index, then those that came in. */
  patch(removed: LineItemEntry[], added: LineItemEntry[]): void {
    for (const lineItem of removed) for (const creative of lineItem.creatives) this.byCreative.delete(`${creative.id}/${lineItem.id}`);
    for (const lineItem of added) for (const creative of lineItem.creatives) this.byCreative.set(`${creative.id}/${lineItem.id}`, creative.destinationUrl);
  }

  get(creativeId: string, lineItemId: string): string | undefined {
    return this.byCreative.get(`${creativeId}/${lineItemId}`);
  }
}

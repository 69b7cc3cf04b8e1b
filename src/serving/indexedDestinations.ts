import { creativesOf, type AdIndex, type BilledLineItem, type LineItemEntry } from './adIndex.js';
import type { BilledSpend, SpendPacing } from './spendPacing.js';
import type { ServeHistory } from '../tracking/serveHistory.js';

type BilledSpendOf = (lineItems: ReadonlyMap<string, string>, fromDay?: number) => Promise<Map<string, BilledSpend>>;
type RepeatSettler = Pick<SpendPacing, 'hasUnsettledSpend' | 'settleRepeats' | 'countersDay'>;

/**
 * The current serving index's line items by id, for tracking: the click destinations of their
 * creatives, where a click goes when Postgres cannot be asked and the click cache has never seen the
 * creative; and their budgets, spend and frequency counts, which billing ceilings judge events by
 * (src/tracking/billingCeiling.ts). A destination is found through its line item, whose one to
 * three creatives are looked through: a key per creative cost 0.13 s of every start at 100,000 line
 * items.
 *
 * A line item that leaves the index (paused, ended, deleted, out of budget) is kept for billing as
 * long as the links it was served with stay valid (`retiredForMs`, the tracking links' lifetime):
 * its ads can still be loaded and clicked, and without its budgets a caller who served ahead and
 * fired the links after a pause would be billed without a ceiling. Its spend counter and its cap's
 * counts keep being synced (SpendPacing and FrequencyCounts keep those of `retired()`). A process
 * started after a line item left never had it in its index: it reads those that left within the
 * links' lifetime from Postgres at start and keeps them the same way (`keepRetired`,
 * retiredLineItems.ts); a line item still active but left out of the index (no creative left, a
 * price out of range) is in the catalog the index is built from, and kept from there.
 */
export class IndexedDestinations {
  private byLineItem = new Map<string, LineItemEntry>();
  private readonly retired = new Map<string, { entry: BilledLineItem; leftAtMs: number }>();
  /** Moves the spend and cap counters to the day, month and cap windows of a time (set by serving: rollCountersWith). */
  private rollCounters: (nowMs: number) => void = () => {};
  /** Reads line items' billed spend by day and in all (set by serving: readSpendWith). */
  private readSpend: BilledSpendOf | undefined;
  /** Checks a line item's unwritten spend for repeats of serves ClickHouse counted (set by serving: settleRepeatsWith). */
  private repeats: RepeatSettler | undefined;

  constructor(private readonly retiredForMs: number) {}

  /** Called with each new index; a failed rebuild keeps the previous one, and these with it. */
  replace(index: AdIndex, nowMs = Date.now()): void {
    const next = new Map<string, LineItemEntry>();
    for (const lineItem of index.lineItems) next.set(lineItem.id, lineItem);
    for (const [id, lineItem] of this.byLineItem) if (!next.has(id)) this.retired.set(id, { entry: lineItem, leftAtMs: nowMs });
    for (const id of next.keys()) this.retired.delete(id);
    this.byLineItem = next;
  }

  /** Follows an incremental patch: the entries that left the index, then those that came in. */
  patch(removed: LineItemEntry[], added: LineItemEntry[], nowMs = Date.now()): void {
    for (const lineItem of removed) {
      if (this.byLineItem.get(lineItem.id) !== lineItem) continue;
      this.byLineItem.delete(lineItem.id);
      this.retired.set(lineItem.id, { entry: lineItem, leftAtMs: nowMs });
    }
    for (const lineItem of added) {
      this.byLineItem.set(lineItem.id, lineItem);
      this.retired.delete(lineItem.id);
    }
  }

  /**
   * Keeps for billing a line item this process never had in its index, as if it had left here at
   * `leftAtMs`: one that left before this process started, or one still active that the index
   * leaves out (IndexBuildDeps.unservable). Not one the index holds, nor one already kept.
   */
  keepRetired(id: string, leftAtMs: number, entryOf: () => BilledLineItem | undefined): void {
    if (this.byLineItem.has(id) || this.retired.has(id)) return;
    const entry = entryOf();
    if (entry !== undefined) this.retired.set(id, { entry, leftAtMs });
  }

  /** Forgets the line items that left the index longer ago than their links live; returns their ids. */
  pruneRetired(nowMs = Date.now()): string[] {
    const pruned: string[] = [];
    for (const [id, { leftAtMs }] of this.retired) {
      if (nowMs - leftAtMs <= this.retiredForMs) continue;
      this.retired.delete(id);
      pruned.push(id);
    }
    return pruned;
  }

  /** Serving's SpendPacing.billedSpend, for billedSpend. */
  readSpendWith(read: BilledSpendOf): void {
    this.readSpend = read;
  }

  /**
   * Line items' billed spend by UTC day and in all (SpendPacing.billedSpend), which the billing
   * ceilings judge a conversion the counters cannot judge, and an import's lines, by; undefined
   * before serving set the reader.
   */
  billedSpend(lineItems: ReadonlyMap<string, string>, fromDay?: number): Promise<Map<string, BilledSpend>> | undefined {
    return this.readSpend?.(lineItems, fromDay);
  }

  /** Serving's SpendPacing, for hasUnsettledSpend, settleRepeats and countersDay. */
  settleRepeatsWith(repeats: RepeatSettler): void {
    this.repeats = repeats;
  }

  /** Whether some of a line item's unwritten spend is of impressions or clicks not yet checked for repeats (SpendPacing.hasUnsettledSpend). */
  hasUnsettledSpend(lineItemId: string): boolean {
    return this.repeats?.hasUnsettledSpend(lineItemId) ?? false;
  }

  /**
   * Takes the repeats of serves ClickHouse counted out of a line item's unwritten spend, which the
   * billing ceilings judge by, and answers what ClickHouse holds of the serves asked about
   * (SpendPacing.settleRepeats); undefined before serving set the settler.
   */
  settleRepeats(lineItemId: string, campaignId: string, serveIds: Iterable<string>): Promise<Map<string, ServeHistory>> | undefined {
    return this.repeats?.settleRepeats(lineItemId, campaignId, serveIds);
  }

  /** The UTC day the spend counters are of (SpendPacing.countersDay); -Infinity before serving set the settler. */
  countersDay(): number {
    return this.repeats?.countersDay() ?? Number.NEGATIVE_INFINITY;
  }

  /** Serving's SpendPacing.roll and FrequencyCounts.roll, for billedLineItem and indexed. */
  rollCountersWith(roll: (nowMs: number) => void): void {
    this.rollCounters = roll;
  }

  /**
   * A line item in the index, or one that left it while its links may still be used: what billing
   * ceilings judge by. Given the time of a judgement, `nowMs`, the counters (every line item's) are
   * first moved to its UTC day, month and cap windows, as a serve moves them.
   */
  billedLineItem(lineItemId: string, nowMs?: number): BilledLineItem | undefined {
    if (nowMs !== undefined) this.rollCounters(nowMs);
    return this.byLineItem.get(lineItemId) ?? this.retired.get(lineItemId)?.entry;
  }

  /**
   * A line item in the current index: active and servable, whether or not its budgets let it serve
   * now. Its spend and cap counts are first moved to the UTC day, month and cap windows of `nowMs`,
   * as a serve moves them: what the match preview and `delivery_stopped_by` show is then the
   * serve's judgement of now, not yesterday's spend until the next pacing sync.
   */
  indexed(lineItemId: string, nowMs: number): LineItemEntry | undefined {
    this.rollCounters(nowMs);
    return this.byLineItem.get(lineItemId);
  }

  get(creativeId: string, lineItemId: string): string | undefined {
    const lineItem = this.byLineItem.get(lineItemId);
    return lineItem && creativesOf(lineItem).find((creative) => creative.id === creativeId)?.destinationUrl;
  }
}

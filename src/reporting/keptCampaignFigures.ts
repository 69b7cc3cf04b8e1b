import { performanceMetrics, ZERO_SUMS, type PerformanceMetrics } from './performanceMetrics.js';
import { rollupSums } from './rollupSums.js';
import { reachOver, type ReachStores } from './reachBlocks.js';

/** A campaign's figures over a window: its sums' metrics (rates recomputed from the sums) and its reach. */
export interface CampaignFigures {
  metrics: PerformanceMetrics;
  uniqueUsers: number;
}

/**
 * Past this many kept campaign windows the memory starts again (a bound, not a tuning knob): a
 * window's page of 1,000 campaigns is about 0.3 MB.
 */
const MAX_KEPT = 50_000;

interface Kept {
  /** The store's generation (WrittenEventDays.now) before the figures were read. */
  generation: number;
  figures: CampaignFigures;
}

/**
 * Each campaign's finished figures over a window, as the campaign breakdown answered them, kept
 * while no write has changed an event of the window's days since they were read (WrittenEventDays,
 * embedded ClickHouse only). A repeat of a past window (a dashboard reloaded, the next page, a CSV
 * of what was just shown) then reads no ClickHouse at all: live traffic writes today's events, which
 * leave a window of past days as it was, while a late event or an import for one of its days, any
 * write that names no days (a test's insert, a DDL) and a restart drop it, so the next report reads
 * the store as before. A campaign whose figures are not kept costs what it did (the sums and reach,
 * for those campaigns only), plus this memory. On a ClickHouse server other instances write too:
 * nothing is kept there.
 */
export class KeptCampaignFigures {
  /** Per window ('date_from date_to'), per campaign. */
  readonly #kept = new Map<string, Map<string, Kept>>();
  #size = 0;

  /** The figures of the campaigns over dateFrom..dateTo, in their order; read from ClickHouse for those not kept. */
  async figures(stores: ReachStores, campaignIds: string[], dateFrom: string, dateTo: string): Promise<CampaignFigures[]> {
    const days = stores.ch.writtenEventDays;
    const windowKey = `${dateFrom} ${dateTo}`;
    const window = days ? this.#kept.get(windowKey) : undefined;
    const answer: Array<CampaignFigures | undefined> = new Array<CampaignFigures | undefined>(campaignIds.length);
    const missing: string[] = [];
    // Most kept rows of a page share one generation: the check runs once per generation.
    const untouched = new Map<number, boolean>();
    campaignIds.forEach((id, index) => {
      const kept = window?.get(id);
      if (kept !== undefined && days) {
        let valid = untouched.get(kept.generation);
        if (valid === undefined) untouched.set(kept.generation, (valid = days.untouchedSince(kept.generation, dateFrom, dateTo)));
        if (valid) {
          answer[index] = kept.figures;
          return;
        }
      }
      missing.push(id);
    });
    if (missing.length === 0) return answer as CampaignFigures[];
    // Taken before the reads: a write ending during them is marked after it, so what they read is never kept past it.
    const generation = days?.now();
    // Embedded chdb runs one parameterized query at a time, off this thread: the sums arrive first,
    // and their rates are computed while reach's queries run.
    const [metrics, reach] = await Promise.all([
      rollupSums(stores.ch, 'campaign_id', missing, dateFrom, dateTo).then((sums) => missing.map((id) => performanceMetrics(sums.get(id) ?? ZERO_SUMS))),
      reachOver(stores, missing, dateFrom, dateTo, false),
    ]);
    const read = new Map(missing.map((id, index) => [id, { metrics: metrics[index]!, uniqueUsers: reach.get(id) ?? 0 }]));
    if (generation !== undefined) this.#keep(windowKey, generation, read);
    return campaignIds.map((id, index) => answer[index] ?? read.get(id)!);
  }

  #keep(windowKey: string, generation: number, read: Map<string, CampaignFigures>): void {
    if (this.#size + read.size > MAX_KEPT) {
      this.#kept.clear();
      this.#size = 0;
    }
    let window = this.#kept.get(windowKey);
    if (window === undefined) this.#kept.set(windowKey, (window = new Map()));
    for (const [id, figures] of read) {
      if (!window.has(id)) this.#size += 1;
      window.set(id, { generation, figures });
    }
  }
}

import { z } from 'zod';
import { billingCeilingPassed, NOTHING_HELD } from '../money/billingCeilingRule.js';
import { convertToUsd } from '../money/usdRates.js';
import { ApiError } from '../http/errors.js';
import { budgetsInNanos } from '../serving/adIndex.js';
import { addTo, spendByMonth, type BilledSpend } from '../serving/spendPacing.js';
import type { SqlExecutor } from '../store/postgres.js';
import { utcDay, utcMonthOfDay } from '../utcDays.js';
import type { BillingCeiling } from './billingCeiling.js';
import type { TrackedEvent } from './trackedEvent.js';

/** A line item's budgets and its billed spend by UTC day, month and in all, as an import judges its lines against them. */
interface ImportFigures {
  budgetNanos: number;
  lifetimeBudgetNanos: number;
  days: Map<number, number>;
  months: Map<number, number>;
  lifetimeNanos: number;
}

const budgetRow = z.object({ id: z.string(), budget_daily: z.string().nullable(), budget_currency: z.string().nullable(), budget_lifetime: z.string().nullable() });

/**
 * The billing ceilings of one import (POST /v1/admin/events/import): each valid line that costs
 * something is judged by the rule live events are judged by (src/money/billingCeilingRule.ts), and
 * one over a ceiling is stored at cost 0 with its reason in `unbilled`, as a live event would be.
 *
 * An import brings the past, whose spend the rollups know day by day: so every line is judged
 * against **its own** UTC day's billed spend (2x the daily budget), its own month's (30.4x) and the
 * lifetime spend, whatever its day, with the line item's current budgets (a past day's budget is not
 * kept). A line item's spend is read at its first line that costs something, by the reader a late
 * conversion is judged by (SpendPacing.billedSpend): every day's from ClickHouse plus what this
 * instance accepted and has not written yet. Then the lines are judged in the file's order, each
 * billed line adding its cost to its day, month and lifetime here, so that the file itself cannot
 * pass a ceiling.
 *
 * Each batch is judged and stored in its line items' late turns (BillingCeiling.inLateTurns), as a
 * late conversion is judged and stored in its own: a line item's late conversions (and other
 * imports) at this instance are judged before or after the batch, never while it is, and the
 * spend of a line item someone else took the turn of since the import's last batch is read again.
 * So a day passes 2x neither by an import and a postback of the same line item and day (try44 F3)
 * nor by two imports. Live events judged by the counters (today's pixels and clicks) take no turn
 * and are not seen by the import (the live ceilings see the import's events as each batch is
 * stored): today, this month and the lifetime budget can be passed by what live traffic billed
 * during the import, and by what other instances billed.
 */
export class ImportCeilings {
  private readonly figures = new Map<string, ImportFigures | undefined>();

  constructor(
    private readonly deps: {
      db: SqlExecutor;
      /** Line items' billed spend by UTC day and in all (IndexedDestinations.billedSpend), undefined when it cannot be read. */
      billedSpend: (lineItems: ReadonlyMap<string, string>) => Promise<Map<string, BilledSpend>> | undefined;
      /** The line items' late turns the batches are judged and stored in. */
      ceiling: Pick<BillingCeiling, 'inLateTurns' | 'endLateTurns'>;
    },
  ) {}

  /**
   * Judges a batch's events in order (a valid one over a ceiling gets its reason in `unbilled` and
   * cost 0), then `store`s them, in the late turns of the line items of those that cost something.
   */
  async judgeAndStore(batch: TrackedEvent[], store: () => Promise<void>): Promise<void> {
    const billed = batch.filter((event) => event.ivt === '' && event.cost_nanos > 0);
    const lineItems = new Map(billed.map((event) => [event.line_item_id, event.campaign_id] as const));
    if (lineItems.size === 0) return store();
    await this.deps.ceiling.inLateTurns([...lineItems.keys()], this, async (takenSince) => {
      const unread = new Map([...lineItems].filter(([id]) => !this.figures.has(id) || takenSince.has(id)));
      await this.read(unread);
      this.judge(billed);
      await store();
    });
  }

  /** Ends the import: its line items' turns are no longer kept for it. */
  end(): void {
    this.deps.ceiling.endLateTurns(this);
  }

  /** Judges lines that cost something, in order, against their line items' figures, adding those billed to them. */
  private judge(billed: TrackedEvent[]): void {
    for (const event of billed) {
      const figures = this.figures.get(event.line_item_id);
      if (figures === undefined) continue;
      const day = utcDay(event.event_time);
      const month = utcMonthOfDay(day);
      const spend = { nanos: figures.days.get(day) ?? 0, monthNanos: figures.months.get(month) ?? 0, lifetimeNanos: figures.lifetimeNanos };
      // 'today': every ceiling applies, each against the figures of the line's own day and month.
      const reason = billingCeilingPassed({ ...figures, spend }, event.cost_nanos, NOTHING_HELD, 'today');
      if (reason !== undefined) {
        event.unbilled = reason;
        event.cost_nanos = 0;
        continue;
      }
      addTo(figures.days, day, event.cost_nanos);
      addTo(figures.months, month, event.cost_nanos);
      figures.lifetimeNanos += event.cost_nanos;
    }
  }

  /** The figures of line items (id to campaign id) read anew: one Postgres and one ClickHouse query for all of them. */
  private async read(unread: ReadonlyMap<string, string>): Promise<void> {
    if (unread.size === 0) return;
    const ids = [...unread.keys()];
    const { rows } = await this.deps.db.query(`SELECT id, budget_daily::text AS budget_daily, budget_currency, budget_lifetime::text AS budget_lifetime
       FROM line_items WHERE id = ANY($1::uuid[])`, [ids]);
    const spend = await this.deps.billedSpend(unread);
    if (spend === undefined) throw new ApiError('unavailable', 'billed spend cannot be read yet to judge the import; retry later');
    for (const id of ids) this.figures.set(id, undefined);
    for (const raw of rows) {
      const row = budgetRow.parse(raw);
      // No daily budget, or one in a currency that cannot be converted: no ceiling, as for a live event (billingCeiling.ts).
      const budgets = budgetsInNanos(row, convertToUsd);
      if (typeof budgets === 'string') continue;
      const { days, lifetimeNanos } = spend.get(row.id)!;
      this.figures.set(row.id, { ...budgets, days, months: spendByMonth(days), lifetimeNanos });
    }
  }
}

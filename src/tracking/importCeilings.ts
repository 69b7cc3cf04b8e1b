import { z } from 'zod';
import { billingCeilingPassed, NOTHING_HELD } from '../money/billingCeilingRule.js';
import { convertToUsd } from '../money/usdRates.js';
import { budgetsInNanos, type BilledLineItem } from '../serving/adIndex.js';
import type { ClickHouse } from '../store/clickhouse.js';
import type { SqlExecutor } from '../store/postgres.js';
import { MS_PER_DAY, utcDay, utcMonthOfDay } from '../utcDays.js';
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
const daySpendRow = z.object({ line_item: z.string(), day: z.string(), spend: z.coerce.number() });

/**
 * The billing ceilings of one import (POST /v1/admin/events/import): each valid line that costs
 * something is judged by the rule live events are judged by (src/money/billingCeilingRule.ts), and
 * one over a ceiling is stored at cost 0 with its reason in `unbilled`, as a live event would be.
 *
 * An import brings the past, whose spend the rollups know day by day: so every line is judged
 * against **its own** UTC day's billed spend (2x the daily budget), its own month's (30.4x) and the
 * lifetime spend, whatever its day, with the line item's current budgets (a past day's budget is not
 * kept). A line item's spend is read once per import, at its first line that costs something: its
 * days from `daily_stats_v1`, today's, this month's and lifetime figures raised to the live counters'
 * (billingCeiling.ts: they hold what this instance accepted and has not written yet), today being
 * the day of that read, not of the import's start. Then the lines are judged in the file's order,
 * each billed line adding its cost to its day, month and lifetime here, so that the file itself
 * cannot pass a ceiling. Live events billed while the import runs are not seen by it (the live
 * ceilings see the import's events as each batch is stored): a day can pass 2x by what live traffic
 * billed during the import.
 */
export class ImportCeilings {
  private readonly figures = new Map<string, ImportFigures | undefined>();

  constructor(
    private readonly deps: {
      db: SqlExecutor;
      ch: ClickHouse;
      /** The live figures of a line item the serving index or billing keeps, if any, moved to the day of `nowMs` (IndexedDestinations.billedLineItem). */
      live: (lineItemId: string, nowMs: number) => BilledLineItem | undefined;
    },
  ) {}

  /** Judges a batch's events in order: a valid one over a ceiling gets its reason in `unbilled` and cost 0. */
  async judge(batch: TrackedEvent[]): Promise<void> {
    const billed = batch.filter((event) => event.ivt === '' && event.cost_nanos > 0);
    await this.read(billed);
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
      add(figures.days, day, event.cost_nanos);
      add(figures.months, month, event.cost_nanos);
      figures.lifetimeNanos += event.cost_nanos;
    }
  }

  /** The figures of the batch's line items not read yet: one Postgres and one ClickHouse query for all of them. */
  private async read(billed: TrackedEvent[]): Promise<void> {
    const unread = new Map<string, string>();
    for (const event of billed) if (!this.figures.has(event.line_item_id)) unread.set(event.line_item_id, event.campaign_id);
    if (unread.size === 0) return;
    const ids = [...unread.keys()];
    const { rows } = await this.deps.db.query(`SELECT id, budget_daily::text AS budget_daily, budget_currency, budget_lifetime::text AS budget_lifetime
       FROM line_items WHERE id = ANY($1::uuid[])`, [ids]);
    const result = await this.deps.ch.client.query({
      // campaign_id leads daily_stats_v1's key: it narrows the read to these campaigns' rows.
      query: `SELECT toString(line_item_id) AS line_item, toString(day) AS day, toString(sum(spend_nanos)) AS spend
              FROM daily_stats_v1
              WHERE campaign_id IN {campaigns:Array(UUID)} AND line_item_id IN {line_items:Array(UUID)}
              GROUP BY line_item_id, day HAVING sum(spend_nanos) != 0`,
      query_params: { campaigns: [...new Set(unread.values())], line_items: ids },
      format: 'JSONEachRow',
    });
    const days = new Map<string, Array<{ day: number; spend: number }>>();
    for (const raw of await result.json()) {
      const row = daySpendRow.parse(raw);
      const list = days.get(row.line_item) ?? [];
      list.push({ day: Date.parse(`${row.day}T00:00:00Z`) / MS_PER_DAY, spend: row.spend });
      days.set(row.line_item, list);
    }
    for (const id of ids) this.figures.set(id, undefined);
    // The live counters are of the current UTC day (`live` moves them there if no serve did yet), so
    // they are the figures of the read's day, not of the import's start: an import begun before
    // midnight that reads them after it put the new day's live spend on the old day, and judged the
    // new day's lines (up to 5 minutes ahead are taken) without it. What this instance had accepted
    // of the old day and not yet written when the day turned is then seen only as far as the rollups
    // have it, as live events billed during the import are not seen.
    const readMs = Date.now();
    const today = utcDay(readMs);
    for (const raw of rows) {
      const row = budgetRow.parse(raw);
      // No daily budget, or one in a currency that cannot be converted: no ceiling, as for a live event (billingCeiling.ts).
      const budgets = budgetsInNanos(row, convertToUsd);
      if (typeof budgets === 'string') continue;
      const figures: ImportFigures = { ...budgets, days: new Map(), months: new Map(), lifetimeNanos: 0 };
      for (const { day, spend } of days.get(row.id) ?? []) {
        add(figures.days, day, spend);
        add(figures.months, utcMonthOfDay(day), spend);
        figures.lifetimeNanos += spend;
      }
      const live = this.deps.live(row.id, readMs)?.spend;
      if (live !== undefined) {
        figures.days.set(today, Math.max(figures.days.get(today) ?? 0, live.nanos));
        figures.months.set(utcMonthOfDay(today), Math.max(figures.months.get(utcMonthOfDay(today)) ?? 0, live.monthNanos));
        figures.lifetimeNanos = Math.max(figures.lifetimeNanos, live.lifetimeNanos);
      }
      this.figures.set(row.id, figures);
    }
  }
}

function add(totals: Map<number, number>, key: number, nanos: number): void {
  totals.set(key, (totals.get(key) ?? 0) + nanos);
}

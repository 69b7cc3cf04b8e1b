import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { CountedEvent } from '../tracking/trackedEvent.js';
import { NO_HISTORY, type ServeHistory } from '../tracking/serveHistory.js';
import type { EventPipeline } from '../tracking/eventPipeline.js';
import { MS_PER_DAY, firstDayOfMonth, utcDay, utcDate, utcMonthOfDay } from '../utcDays.js';
import { billedEvent, type PriceModel } from '../money/priceModels.js';
import { usdToNanos } from '../money/nanoUsd.js';
import { OutstandingServes } from './outstandingServes.js';

/** A line item's spend today (UTC), this UTC month (today included) and in all, in nano-USD; the ad index holds it and reads it on every serve. */
export interface SpendCounter {
  nanos: number;
  monthNanos: number;
  lifetimeNanos: number;
  /**
   * The expected cost of this instance's serves still waiting for their billing event
   * (SpendPacing.served): serving counts it on top of today's spend against the daily budget as
   * paced, so a burst of serves cannot all pass the same remaining budget. Not spend: billing and
   * the ceilings never read it.
   */
  outstandingNanos: number;
  /**
   * outstandingNanos by the publisher whose serves hold it, for the publishers with a serve
   * outstanding (undefined when none): a publisher's serves count in full against its own serves,
   * another's only up to a share (selectAd.ts, outOfBudget).
   */
  publisherHolds?: Map<string, PublisherHold>;
}

/** What one publisher's outstanding serves hold on one line item's counter: the outstanding serves' holder. */
interface PublisherHold {
  counter: SpendCounter;
  publisherId: string;
  nanos: number;
}

/** A line item's billed spend of one UTC day, of that day's month and in all, in nano-USD (spendOfDay). */
export interface LineItemSpend {
  nanos: number;
  monthNanos: number;
  lifetimeNanos: number;
}

/** A line item's billed spend by UTC day (those read: SpendPacing.billedSpend) and in all, in nano-USD. */
export interface BilledSpend {
  days: Map<number, number>;
  lifetimeNanos: number;
}

/** A line item's billed spend of `day`, of its month and in all, from what billedSpend read from that month's first day on (or earlier). */
export function spendOfDay(billed: BilledSpend, day: number): LineItemSpend {
  const monthNanos = spendByMonth(billed.days).get(utcMonthOfDay(day)) ?? 0;
  return { nanos: billed.days.get(day) ?? 0, monthNanos, lifetimeNanos: billed.lifetimeNanos };
}

/** Billed spend by UTC month (utcMonthOfDay) of billed spend by UTC day. */
export function spendByMonth(days: ReadonlyMap<number, number>): Map<number, number> {
  const months = new Map<number, number>();
  for (const [day, nanos] of days) addTo(months, utcMonthOfDay(day), nanos);
  return months;
}

/** Adds `nanos` to the total of `key`. */
export function addTo(totals: Map<number, number>, key: number, nanos: number): void {
  totals.set(key, (totals.get(key) ?? 0) + nanos);
}

/** A billed event this instance accepted that ClickHouse may not have yet: its sequence number (record), UTC day and cost. */
interface UnflushedSpend {
  seq: number;
  day: number;
  nanos: number;
  type: CountedEvent['type'];
  /** Its own event id: settleRepeats takes a counted row of its serve under this id for itself (a crash's segment ClickHouse took), not a repeat. */
  eventId: string;
  /**
   * The serve of an impression or click not yet checked against ClickHouse (settleRepeats): it may
   * repeat a serve an earlier run or another instance counted, and be written `duplicate`, unbilled.
   * Undefined once checked, and for a conversion.
   */
  unsettledServeId: string | undefined;
}

/** Most serve ids in one query of settleRepeats (as ServeHistoryLookup's batches). */
const SETTLE_BATCH_SERVES = 1000;

const spendRow = z.object({ line_item: z.string(), spend: z.coerce.number() });
const monthRow = spendRow.extend({ month_spend: z.coerce.number() });
const daySpendRow = spendRow.extend({ spend_day: z.string() });
const countedRow = z.object({ serve_id: z.string(), type: z.string(), first_ms: z.coerce.number(), counted_by: z.array(z.string()) });

/** How much of a day's budget even pacing lets a line item have spent by `nowMs`: see dailyAllowanceShare. */
const EVEN_PACING_LEAD_MS = 3_600_000;

/**
 * Even pacing: by any moment of the UTC day, at most budget x (time elapsed today + 1 hour) / 24 h
 * is spent. Whatever earlier hours left unspent stays available, so the remaining budget is spread
 * over the remaining hours; the hour of lead lets delivery start at midnight and has the whole
 * budget available from 23:00.
 */
export function dailyAllowanceShare(nowMs: number): number {
  return Math.min(1, ((nowMs % MS_PER_DAY) + EVEN_PACING_LEAD_MS) / MS_PER_DAY);
}

/**
 * Today's, this month's and lifetime spend per line item, kept current between two sources:
 *
 * - ClickHouse `daily_stats_v1` (today and the month so far, one query over the month's partition)
 *   and `line_item_spend_v1` (lifetime), which every instance
 *   writes to: re-read every PACING_SYNC_MS, so
 *   counters survive a restart and converge across instances;
 * - this instance's own accepted events (`events.onAccepted`), added at once, so one instance never
 *   waits for a sync to see its own spend; and, before them, those a crashed run accepted and left
 *   in the spool, replayed at start (`events.forEachRecovered`): until ClickHouse has them, they
 *   count the same way, so a restart does not serve or bill past a budget their spend used up.
 *
 * No event is lost or counted twice: the pipeline writes events to ClickHouse in the order it
 * accepted them, and a sync reads between its writes (EventPipeline.readBetweenWrites), so all but
 * the last `unwritten` recorded events are in what it reads, and those are not. The others are
 * dropped from the local list; these are added on top of the ClickHouse figure until a later sync
 * finds them written.
 * (One exception: an insert a crash left in flight that ClickHouse keeps refusing is set aside and
 * counts as written before it is: its spend is missing until then where daily_stats_v1 lacks it,
 * docs/failure-modes.md.)
 */
export class SpendPacing {
  private readonly counters = new Map<string, SpendCounter>();
  /**
   * The unwritten spend by line item, each list in the order recorded (seq rising): a late
   * conversion's billedSpend walks its own line item's only, not every line item's (a backlog after a
   * ClickHouse outage holds an entry per billed impression: rev42 R12).
   */
  private readonly unflushed = new Map<string, UnflushedSpend[]>();
  /** How many of each line item's unflushed entries have an unsettledServeId: one lookup per pixel judged over a ceiling. */
  private readonly unsettled = new Map<string, number>();
  private acceptedSeq = 0;
  /** The UTC day today's counters hold: set by the first sync, roll or recorded event, never moved back (see sync). */
  private day = Number.NEGATIVE_INFINITY;
  /** When the next UTC day begins: roll's one compare. */
  private nextDayMs = Number.NEGATIVE_INFINITY;
  /** This instance's outstanding serves, each holding its expected cost on its line item's counter. */
  private readonly outstanding = new OutstandingServes<PublisherHold>((hold, nanos) => {
    hold.nanos -= nanos;
    hold.counter.outstandingNanos -= nanos;
    // Whole nano-USD: a publisher's hold is 0 exactly when none of its serves is outstanding.
    if (hold.nanos === 0) {
      const holds = hold.counter.publisherHolds!;
      holds.delete(hold.publisherId);
      if (holds.size === 0) hold.counter.publisherHolds = undefined;
    }
  });

  constructor(
    private readonly ch: ClickHouse,
    private readonly events: Pick<EventPipeline, 'readBetweenWrites'>,
  ) {}

  /** The counter of a line item, shared by every index build so a rebuild keeps the spend. */
  counterFor(lineItemId: string): SpendCounter {
    let counter = this.counters.get(lineItemId);
    if (!counter) this.counters.set(lineItemId, (counter = { nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0, publisherHolds: undefined }));
    return counter;
  }

  /**
   * A serve of a line item on a placement of `publisherId`: its expected cost (`expectedUsd`, what one impression of it is expected
   * to earn: tCPM price / 1000, CPC price x CTR, CPA price x CTR x CVR) counts against the daily
   * budget at once, until its billing event (the impression, click or conversion its price model
   * pays for) is recorded here, valid or not, billed or not (then its cost, if any, counts instead),
   * or OUTSTANDING_SERVE_MS passes. Spend counts only when events arrive, seconds to days after their
   * serves: without this, every serve of a burst passed while the spend already counted was below
   * what pacing had released. An event that reaches another instance is seen here only through
   * ClickHouse: until the serve expires its cost and its expected cost both count, which errs on
   * serving less. The hold is kept by publisher too: a publisher whose serves are not shown holds
   * back its own serves of the line item, not others' (selectAd.ts, outOfBudget).
   */
  served(serveId: string, counter: SpendCounter, publisherId: string, model: PriceModel, expectedUsd: number, nowMs: number): void {
    const nanos = usdToNanos(expectedUsd);
    if (!(nanos > 0)) return this.outstanding.expire(nowMs);
    const hold = counter.publisherHolds?.get(publisherId) ?? { counter, publisherId, nanos: 0 };
    if (!this.outstanding.hold(serveId, hold, nanos, billedEvent[model], nowMs)) return;
    // New, or its last serve expired in hold(), which took it out of the map.
    if (hold.nanos === 0) (counter.publisherHolds ??= new Map()).set(publisherId, hold);
    hold.nanos += nanos;
    counter.outstandingNanos += nanos;
  }

  /** Forgets line items no longer in the index; a line item that comes back is re-read at the next sync. */
  retainOnly(kept: (lineItemId: string) => boolean): void {
    for (const id of this.counters.keys()) if (!kept(id)) this.counters.delete(id);
  }

  /** Forgets one line item that left the index (an incremental patch). */
  forget(lineItemId: string): void {
    this.counters.delete(lineItemId);
  }

  /**
   * Every spooled event, valid or not, so that `acceptedSeq` lines up with the pipeline's `unwritten`.
   * An event already `written` to ClickHouse (a conversion, EventPipeline.writeNow) never counts as
   * `unwritten`: it takes no sequence number, and the next sync finds it in ClickHouse. The events a
   * crashed run left spooled are recorded first, as accepted (EventPipeline.forEachRecovered).
   */
  record(event: CountedEvent, written = false): void {
    const seq = written ? 0 : ++this.acceptedSeq;
    this.outstanding.arrived(event.serve_id, event.type);
    if (event.ivt !== '' || event.cost_nanos <= 0) return;
    const day = utcDay(event.event_time);
    if (!written) {
      const unsettledServeId = event.type === 'conversion' || event.serve_id === '' ? undefined : event.serve_id;
      const spend = { seq, day, nanos: event.cost_nanos, type: event.type, eventId: event.event_id, unsettledServeId };
      const list = this.unflushed.get(event.line_item_id);
      if (list === undefined) this.unflushed.set(event.line_item_id, [spend]);
      else list.push(spend);
      if (unsettledServeId !== undefined) this.unsettled.set(event.line_item_id, (this.unsettled.get(event.line_item_id) ?? 0) + 1);
    }
    // The first event of a new UTC day starts the day's spend at once, not at the next sync: else
    // until a sync succeeds (ClickHouse down over midnight, for one) no event of the new day would
    // count against its budget and billing ceiling.
    if (day > this.day && day <= utcDay(Date.now())) this.startDay(day);
    const counter = this.counters.get(event.line_item_id);
    if (counter) {
      counter.lifetimeNanos += event.cost_nanos;
      if (day === this.day) counter.nanos += event.cost_nanos;
      if (day <= this.day && utcMonthOfDay(day) === utcMonthOfDay(this.day)) counter.monthNanos += event.cost_nanos;
    }
  }

  /**
   * Moves the counters to the UTC day (and month) of `nowMs` when it is a new one: called where spend
   * is judged, by every serve and by billing before its ceilings (IndexedDestinations.billedLineItem),
   * so the first seconds of a day are not judged against yesterday's spend until the next sync or
   * billed event (try38 T3: a line item at its ceiling yesterday had today's first events stored
   * over_daily_budget, at cost 0, and was held back as `budget`). One compare until midnight. Only
   * forward, with the clock: `nowMs` is the time of the serve or judgement, never an event's.
   */
  roll(nowMs: number): void {
    if (nowMs >= this.nextDayMs) this.startDay(utcDay(nowMs));
  }

  /** A new UTC day (and maybe month): nothing is spent of it yet but what this instance accepted of it, and sync adds the rest. */
  private startDay(day: number): void {
    const newMonth = utcMonthOfDay(day) !== utcMonthOfDay(this.day);
    this.day = day;
    this.nextDayMs = (day + 1) * MS_PER_DAY;
    for (const counter of this.counters.values()) {
      counter.nanos = 0;
      if (newMonth) counter.monthNanos = 0;
    }
  }

  /** Re-reads today's, this month's and lifetime spend from ClickHouse and adds what this instance accepted that is not there yet. */
  async sync(now = Date.now()): Promise<void> {
    // Here too, not only at a serve: a line item its outstanding serves hold back is not served until they expire.
    this.outstanding.expire(now);
    // The pacing day never goes back: were a clock stepped back across midnight to move it, the step
    // forward again would start the day anew (every counter at 0 until the read below returns) and
    // serve a line item whose day is spent. While the clock is behind, today's spend holds.
    const today = Math.max(utcDay(now), this.day);
    // A new UTC day (or month) starts now, before the reads, if no serve or judgement started it
    // (roll): a sync that fails (ClickHouse down over midnight) still leaves the day begun.
    if (today > this.day) this.startDay(today);
    const monthStart = firstDayOfMonth(today);
    const { writtenThroughSeq, written, writtenMonth, writtenLifetime } = await this.events.readBetweenWrites(async (unwritten) => {
      // Before any await: `unwritten` is of the events recorded by now.
      const writtenThroughSeq = this.acceptedSeq - unwritten;
      const writtenLifetime = await this.readSpend(
        `SELECT toString(line_item_id) AS line_item, toString(sum(spend_nanos)) AS spend
         FROM line_item_spend_v1 GROUP BY line_item_id HAVING sum(spend_nanos) != 0`,
        {},
      );
      const result = await this.ch.client.query({
        // Aliases differ from the column names: ClickHouse would otherwise read the alias inside sum().
        // The month's days are one partition of daily_stats_v1 (toYYYYMM(day)), which `day = today` read too.
        query: `SELECT toString(line_item_id) AS line_item, toString(sumIf(spend_nanos, day = {day:Date})) AS spend,
                       toString(sum(spend_nanos)) AS month_spend
                FROM daily_stats_v1 WHERE day >= {month_start:Date} AND day <= {day:Date}
                GROUP BY line_item_id HAVING sum(spend_nanos) != 0`,
        query_params: { day: utcDate(today * MS_PER_DAY), month_start: utcDate(monthStart * MS_PER_DAY) },
        format: 'JSONEachRow',
      });
      const written = new Map<string, number>();
      const writtenMonth = new Map<string, number>();
      for (const row of await result.json()) {
        const { line_item, spend, month_spend } = monthRow.parse(row);
        written.set(line_item, spend);
        writtenMonth.set(line_item, month_spend);
      }
      return { writtenThroughSeq, written, writtenMonth, writtenLifetime };
    });
    // Everything after the await ran without yielding: no event was recorded half-way through.
    const local = new Map<string, number>();
    const localMonth = new Map<string, number>();
    const localLifetime = new Map<string, number>();
    for (const [lineItemId, list] of this.unflushed) {
      const unwritten = list.findIndex((spend) => spend.seq > writtenThroughSeq);
      // Written: what ClickHouse made of them, billed or duplicate, is in the figures just read.
      for (let i = 0; i < (unwritten < 0 ? list.length : unwritten); i++) this.settled(lineItemId, list[i]!);
      if (unwritten < 0) {
        this.unflushed.delete(lineItemId);
        continue;
      }
      if (unwritten > 0) list.splice(0, unwritten);
      for (const spend of list) {
        localLifetime.set(lineItemId, (localLifetime.get(lineItemId) ?? 0) + spend.nanos);
        if (spend.day === today) local.set(lineItemId, (local.get(lineItemId) ?? 0) + spend.nanos);
        if (spend.day >= monthStart && spend.day <= today) localMonth.set(lineItemId, (localMonth.get(lineItemId) ?? 0) + spend.nanos);
      }
    }
    // A day that began while the reads ran (a serve, judgement or event rolled it) keeps what it
    // counted since; the reads are of the day before, and the next sync reads the new one.
    const sameDay = this.day === today;
    for (const [id, counter] of this.counters) {
      if (sameDay) {
        counter.nanos = (written.get(id) ?? 0) + (local.get(id) ?? 0);
        counter.monthNanos = (writtenMonth.get(id) ?? 0) + (localMonth.get(id) ?? 0);
      }
      counter.lifetimeNanos = (writtenLifetime.get(id) ?? 0) + (localLifetime.get(id) ?? 0);
    }
  }

  /**
   * Line items' (id to campaign id) billed spend by UTC day from `fromDay` on (every day when 0) and
   * in all, in nano-USD: the one reader of a line item's spend of a past day, month or lifetime,
   * for what the counters (today and this month) cannot judge: a conversion reported for an earlier
   * day or of a line item they no longer keep (BillingCeiling.judgeAndStore, through spendOfDay),
   * and an import's lines (importCeilings.ts). Read as sync reads, between the pipeline's writes:
   * ClickHouse's figures (every instance's) plus the events this instance accepted of those line
   * items that ClickHouse does not have yet, each once. One query.
   */
  async billedSpend(lineItems: ReadonlyMap<string, string>, fromDay = 0): Promise<Map<string, BilledSpend>> {
    const ids = [...lineItems.keys()];
    const { writtenThroughSeq, spend } = await this.events.readBetweenWrites(async (unwritten) => {
      // Before any await: `unwritten` is of the events recorded by now.
      const writtenThroughSeq = this.acceptedSeq - unwritten;
      return { writtenThroughSeq, spend: await this.writtenSpend(lineItems, fromDay) };
    });
    for (const [id, billed] of spend) {
      const list = this.unflushed.get(id) ?? [];
      // From the newest back to the first ClickHouse had when it was read.
      for (let i = list.length - 1; i >= 0 && list[i]!.seq > writtenThroughSeq; i--) {
        const unwritten = list[i]!;
        billed.lifetimeNanos += unwritten.nanos;
        if (unwritten.day >= fromDay) addTo(billed.days, unwritten.day, unwritten.nanos);
      }
    }
    return spend;
  }

  /** Whether some of the line item's unwritten spend is of impressions or clicks not yet checked for repeats (settleRepeats). */
  hasUnsettledSpend(lineItemId: string): boolean {
    return this.unsettled.has(lineItemId);
  }

  /**
   * Takes out of a line item's unwritten spend the impressions and clicks that repeat a serve
   * ClickHouse already holds a counted one of (an earlier run or another instance counted it: the
   * process's ledger did not know the serve), and re-reads its spend: for a billing judgement that
   * found the line item over a ceiling (BillingCeiling.settleRepeats). Such a repeat is certain to be
   * written `duplicate`, unbilled: its write's check (billedOnce.ts) finds the same counted row, and
   * a serve has one counted event of a type. Until then it counted as billable spend, and real
   * events judged meanwhile were stored over a ceiling (try42 F1: after a restart, 50 of 60 billable
   * impressions billed). Read between the pipeline's writes, as billedSpend. A counted row is a
   * repeat's only under another event id, as the write's check has it: an entry a crashed run left
   * spooled can be in ClickHouse already under its own id (a segment it took just before the crash,
   * eventPipeline.ts), and is then not taken out (rev43 R5: its replay completes what the crash left
   * unwritten, the spend rollups maybe). `serveIds`: more serves to ask about (those of the judged
   * events waiting for the check, unstored), read when the read begins, so that the ones added until
   * then are asked too. Answers what ClickHouse counted of every serve asked about that it has a counted row of;
   * each checked entry is settled (not asked about again).
   */
  async settleRepeats(lineItemId: string, campaignId: string, serveIds: Iterable<string>): Promise<Map<string, ServeHistory>> {
    const today = Math.max(this.day, utcDay(Date.now()));
    const { writtenThroughSeq, askedThroughSeq, counted, written } = await this.events.readBetweenWrites(async (unwritten) => {
      // Before any await: `unwritten` is of the events recorded by now.
      const writtenThroughSeq = this.acceptedSeq - unwritten;
      const askedThroughSeq = this.acceptedSeq;
      const asked = new Set(serveIds);
      for (const spend of this.unflushed.get(lineItemId) ?? []) {
        if (spend.seq > writtenThroughSeq && spend.unsettledServeId !== undefined) asked.add(spend.unsettledServeId);
      }
      const ids = [...asked];
      const counted: z.infer<typeof countedRow>[] = [];
      for (let from = 0; from < ids.length; from += SETTLE_BATCH_SERVES) counted.push(...(await this.countedEvents(ids.slice(from, from + SETTLE_BATCH_SERVES))));
      const written = await this.writtenSpend(new Map([[lineItemId, campaignId]]), firstDayOfMonth(today));
      return { writtenThroughSeq, askedThroughSeq, counted, written: written.get(lineItemId)! };
    });
    // Nothing awaits from here on: no event is recorded half-way through.
    const histories = new Map<string, ServeHistory>();
    const countedBy = new Map<string, string[]>();
    for (const row of counted) {
      const history = histories.get(row.serve_id) ?? { ...NO_HISTORY };
      if (row.type === 'click') history.clickCounted = true;
      else {
        history.impressionAt = row.first_ms;
        history.impressionCounted = true;
      }
      histories.set(row.serve_id, history);
      countedBy.set(`${row.serve_id} ${row.type}`, row.counted_by);
    }
    const spend = spendOfDay(written, today);
    for (const unwritten of this.unflushed.get(lineItemId) ?? []) {
      if (unwritten.seq > writtenThroughSeq && unwritten.unsettledServeId !== undefined) {
        const by = countedBy.get(`${unwritten.unsettledServeId} ${unwritten.type}`);
        if (by?.some((eventId) => eventId !== unwritten.eventId)) unwritten.nanos = 0;
      }
      // One recorded while the read ran and not asked about is checked by the next judgement over a ceiling.
      if (unwritten.seq <= askedThroughSeq) this.settled(lineItemId, unwritten);
      if (unwritten.seq <= writtenThroughSeq) continue;
      spend.lifetimeNanos += unwritten.nanos;
      if (unwritten.day === today) spend.nanos += unwritten.nanos;
      if (utcMonthOfDay(unwritten.day) === utcMonthOfDay(today)) spend.monthNanos += unwritten.nanos;
    }
    const counter = this.counters.get(lineItemId);
    // As sync: a day that began while the read ran keeps what it counted since.
    if (counter !== undefined && this.day === today) {
      counter.nanos = spend.nanos;
      counter.monthNanos = spend.monthNanos;
      counter.lifetimeNanos = spend.lifetimeNanos;
    }
    return histories;
  }

  /** The UTC day the counters' `nanos` is of (their month, `monthNanos`'s): a judgement after an await may find them moved on (BillingCeiling). */
  countersDay(): number {
    return this.day;
  }

  /** The counted impressions and clicks ClickHouse holds of serves, by serve and type, with their event ids and the first one's time (clickhouse/0006: one primary-key range per serve). */
  private async countedEvents(serveIds: string[]): Promise<z.infer<typeof countedRow>[]> {
    const result = await this.ch.client.query({
      query: `SELECT serve_id, toString(type) AS type, toInt64(toUnixTimestamp64Milli(min(event_time))) AS first_ms,
                     groupArray(toString(event_id)) AS counted_by
              FROM serve_events_v1
              WHERE serve_id IN {serve_ids:Array(String)} AND counted = 1 AND type IN ('impression', 'click')
              GROUP BY serve_id, type`,
      query_params: { serve_ids: serveIds },
      format: 'JSONEachRow',
    });
    return (await result.json()).map((row) => countedRow.parse(row));
  }

  /** An entry checked for repeats, or written: settleRepeats does not ask about it again. */
  private settled(lineItemId: string, spend: UnflushedSpend): void {
    if (spend.unsettledServeId === undefined) return;
    spend.unsettledServeId = undefined;
    const left = this.unsettled.get(lineItemId)! - 1;
    if (left > 0) this.unsettled.set(lineItemId, left);
    else this.unsettled.delete(lineItemId);
  }

  /** Line items' (id to campaign id) billed spend by UTC day from `fromDay` on and in all, as ClickHouse has it (billedSpend adds the unwritten). */
  private async writtenSpend(lineItems: ReadonlyMap<string, string>, fromDay: number): Promise<Map<string, BilledSpend>> {
    const ids = [...lineItems.keys()];
    const result = await this.ch.client.query({
      // campaign_id leads daily_stats_v1's key, line_item_id is line_item_spend_v1's. A lifetime row has
      // spend_day ''. Aliases differ from the column names: ClickHouse would otherwise read the alias in WHERE.
      query: `SELECT toString(line_item_id) AS line_item, toString(day) AS spend_day, toString(sum(spend_nanos)) AS spend
              FROM daily_stats_v1
              WHERE campaign_id IN {campaigns:Array(UUID)} AND line_item_id IN {line_items:Array(UUID)} AND day >= {from:Date}
              GROUP BY line_item_id, day HAVING sum(spend_nanos) != 0
              UNION ALL
              SELECT toString(line_item_id), '', toString(sum(spend_nanos))
              FROM line_item_spend_v1 WHERE line_item_id IN {line_items:Array(UUID)}
              GROUP BY line_item_id`,
      query_params: { campaigns: [...new Set(lineItems.values())], line_items: ids, from: utcDate(fromDay * MS_PER_DAY) },
      format: 'JSONEachRow',
    });
    const spend = new Map<string, BilledSpend>(ids.map((id) => [id, { days: new Map(), lifetimeNanos: 0 }]));
    for (const raw of await result.json()) {
      const row = daySpendRow.parse(raw);
      const billed = spend.get(row.line_item);
      if (billed === undefined) continue;
      if (row.spend_day === '') billed.lifetimeNanos += row.spend;
      else addTo(billed.days, Date.parse(`${row.spend_day}T00:00:00Z`) / MS_PER_DAY, row.spend);
    }
    return spend;
  }

  /** Spend per line item, in nano-USD, as a query of line_item and spend rows gives it. */
  private async readSpend(query: string, params: Record<string, string>): Promise<Map<string, number>> {
    const result = await this.ch.client.query({ query, query_params: params, format: 'JSONEachRow' });
    const spend = new Map<string, number>();
    for (const row of await result.json()) {
      const parsed = spendRow.parse(row);
      spend.set(parsed.line_item, parsed.spend);
    }
    return spend;
  }
}

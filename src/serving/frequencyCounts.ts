import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { CountedEvent } from '../tracking/trackedEvent.js';
import type { EventPipeline } from '../tracking/eventPipeline.js';
import type { FrequencyCapWindow } from '../management/frequencyCapSchema.js';
import { MS_PER_DAY } from '../utcDays.js';
import { OutstandingServes } from './outstandingServes.js';

/** A capped line item's valid impressions per keyed user in the current window; the ad index reads it on every serve. */
export type UserCounts = Map<string, number>;

/**
 * What a capped line item's serves read: `impressions` per keyed user in the window, and its
 * `outstanding` serves per keyed user, served by this instance within OUTSTANDING_SERVE_MS and
 * whose valid impression it has not seen yet.
 */
export interface CapCounts {
  impressions: UserCounts;
  outstanding: UserCounts;
}

/** What a capped line item's outstanding serve holds: one serve against its user's count. */
interface CapHold {
  outstanding: UserCounts;
  userKey: string;
}

interface UnflushedImpression {
  seq: number;
  lineItemId: string;
  userKey: string;
  timeMs: number;
}

const HOUR_MS = 3_600_000;
// 1970-01-01 was a Thursday: weeks start on Monday, 4 days later.
const WEEK_OFFSET_MS = 4 * MS_PER_DAY;
const countRow = z.object({ line_item: z.string(), user_key: z.string(), impressions: z.coerce.number() });
const versionRow = z.object({ line_item: z.string(), rows: z.string(), impressions: z.string() });

/** The start of the UTC window that holds `nowMs`. */
function windowStart(per: FrequencyCapWindow, nowMs: number): number {
  if (per === 'hour') return nowMs - (nowMs % HOUR_MS);
  if (per === 'day') return nowMs - (nowMs % MS_PER_DAY);
  if (per === 'week') return nowMs - ((nowMs - WEEK_OFFSET_MS) % (7 * MS_PER_DAY));
  return 0;
}

interface TrackedCap {
  per: FrequencyCapWindow;
  /** The start of the window `counts` are of: moved forward by roll, never back; -Infinity until the first roll or sync. */
  windowFrom: number;
  /**
   * What serving reads: ClickHouse's counts in the window's hours before `settledBefore` (settled,
   * read once per hour), plus `recent`, plus `local`.
   */
  counts: UserCounts;
  /** The `recentFrom` the settled counts were read for; undefined until they are. */
  settledBefore: number | undefined;
  /** ClickHouse's counts from `settledBefore` on, as last read. */
  recent: UserCounts;
  /** Rows and impressions ClickHouse held in those hours when `recent` was read: unchanged, nothing to read again. */
  recentVersion: string;
  /** This instance's impressions in `counts` that ClickHouse did not have at the last sync. */
  local: UserCounts;
  /** Serves of this instance waiting for their impression (CapCounts.outstanding). */
  outstanding: UserCounts;
}

function add(counts: UserCounts, userKey: string, impressions: number): void {
  counts.set(userKey, (counts.get(userKey) ?? 0) + impressions);
}

function subtract(counts: UserCounts, part: UserCounts): void {
  for (const [userKey, impressions] of part) {
    const left = (counts.get(userKey) ?? 0) - impressions;
    if (left > 0) counts.set(userKey, left);
    else counts.delete(userKey);
  }
}

/** Line item ids grouped by their cap's window: one query per window. */
function byWindow(lineItems: Array<[string, TrackedCap]>): Map<FrequencyCapWindow, string[]> {
  const grouped = new Map<FrequencyCapWindow, string[]>();
  for (const [id, { per }] of lineItems) {
    const ids = grouped.get(per);
    if (ids) ids.push(id);
    else grouped.set(per, [id]);
  }
  return grouped;
}

/**
 * Valid impressions per (capped line item, keyed user) in each cap's current window, kept the way
 * SpendPacing keeps spend: ClickHouse `frequency_hours_v1` (every instance's impressions) re-read
 * every PACING_SYNC_MS, plus this instance's accepted impressions not written there yet, counted
 * the moment the pixel is accepted. Only line items with a cap are tracked, and only users who
 * saw them in the window are held in memory.
 *
 * A sync reads only what changed: the window's hours before the last two are settled, read once
 * when the hour turns (and when a line item is first capped); of the recent hours (the current
 * clock hour and the one before) it first reads each line item's row and impression totals, which
 * any new row changes, and re-reads the users of those line items only. So a sync costs what new
 * impressions touched, not every user of a week or lifetime window. Impressions written to an hour
 * that was already settled (more than an hour after they happened: a spool replayed after an
 * outage, an import) count from the next hour on.
 */
export class FrequencyCounts {
  private readonly capped = new Map<string, TrackedCap>();
  private unflushed: UnflushedImpression[] = [];
  private acceptedSeq = 0;
  /** When the next clock hour begins: every window (hour, day, week) begins on one. roll's one compare. */
  private nextHourMs = Number.NEGATIVE_INFINITY;
  /** This instance's serves of capped line items waiting for their impression. */
  private readonly outstanding = new OutstandingServes<CapHold>(({ outstanding, userKey }) => {
    const left = (outstanding.get(userKey) ?? 0) - 1;
    if (left > 0) outstanding.set(userKey, left);
    else outstanding.delete(userKey);
  });

  constructor(
    private readonly ch: ClickHouse,
    private readonly events: Pick<EventPipeline, 'readBetweenWrites'>,
  ) {}

  /** The counts of a capped line item, shared by every index build so a rebuild keeps them. */
  countsFor(lineItemId: string, per: FrequencyCapWindow): CapCounts {
    let tracked = this.capped.get(lineItemId);
    if (!tracked || tracked.per !== per) {
      this.capped.set(
        lineItemId,
        (tracked = { per, windowFrom: Number.NEGATIVE_INFINITY, counts: new Map(), settledBefore: undefined, recent: new Map(), recentVersion: '', local: new Map(), outstanding: new Map() }),
      );
    }
    return { impressions: tracked.counts, outstanding: tracked.outstanding };
  }

  /**
   * A serve of a capped line item to a keyed user: it counts against the user's cap until its valid
   * impression is recorded here (then the impression counts) or OUTSTANDING_SERVE_MS passes. So
   * serving ahead, many serves before any pixel, stops at the cap. A pixel that reaches another
   * instance is seen here only through ClickHouse: until the serve expires it counts twice, which
   * errs on serving the user less.
   */
  served(lineItemId: string, serveId: string, userKey: string, nowMs: number): void {
    const tracked = this.capped.get(lineItemId);
    if (tracked === undefined) return this.outstanding.expire(nowMs);
    if (this.outstanding.hold(serveId, { outstanding: tracked.outstanding, userKey }, 1, 'impression', nowMs)) add(tracked.outstanding, userKey, 1);
  }

  /** Forgets line items no longer capped in the index. */
  retainOnly(kept: (lineItemId: string) => boolean): void {
    for (const id of this.capped.keys()) if (!kept(id)) this.capped.delete(id);
  }

  /** Forgets one line item that left the index (an incremental patch). */
  forget(lineItemId: string): void {
    this.capped.delete(lineItemId);
  }

  /**
   * Starts the window of `nowMs` for each cap whose window turned: called where caps are judged, by
   * every serve and by billing before its cap check (IndexedDestinations.billedLineItem), and by sync
   * before its reads. Else the old window's counts judged the new one until a sync's reads returned
   * (try38 T4: a user's first impression of a new hour stored over_frequency_cap, a weekly cap
   * holding a user back for 17 s of the new week). One compare until the hour turns. Only forward,
   * with the clock.
   */
  roll(nowMs: number): void {
    if (nowMs < this.nextHourMs) return;
    this.nextHourMs = windowStart('hour', nowMs) + HOUR_MS;
    this.startWindows(nowMs);
  }

  /**
   * A cap's new window: of it, only this instance's impressions not in ClickHouse yet are known now,
   * and the next sync reads the rest (its settled hours anew, as for a line item just capped).
   */
  private startWindows(nowMs: number): void {
    const started = new Map<string, TrackedCap>();
    for (const [id, tracked] of this.capped) {
      const start = windowStart(tracked.per, nowMs);
      if (start <= tracked.windowFrom) continue;
      tracked.windowFrom = start;
      tracked.counts.clear();
      tracked.settledBefore = undefined;
      tracked.recent = new Map();
      tracked.recentVersion = '';
      tracked.local = new Map();
      started.set(id, tracked);
    }
    if (started.size === 0) return;
    for (const impression of this.unflushed) {
      const tracked = started.get(impression.lineItemId);
      if (tracked === undefined || impression.timeMs < tracked.windowFrom) continue;
      add(tracked.counts, impression.userKey, 1);
      add(tracked.local, impression.userKey, 1);
    }
  }

  /**
   * Every spooled event, so that `acceptedSeq` lines up with the pipeline's `unwritten`. An event
   * already `written` to ClickHouse (EventPipeline.writeNow) never counts as `unwritten`: it takes no
   * sequence number and is counted locally only until the next sync reads it from ClickHouse.
   */
  record(event: CountedEvent, written = false): void {
    const seq = written ? 0 : ++this.acceptedSeq;
    if (event.type !== 'impression' || event.ivt !== '' || event.user_key === '') return;
    this.outstanding.arrived(event.serve_id, 'impression');
    const tracked = this.capped.get(event.line_item_id);
    if (!tracked) return;
    if (!written) this.unflushed.push({ seq, lineItemId: event.line_item_id, userKey: event.user_key, timeMs: event.event_time });
    add(tracked.counts, event.user_key, 1);
    add(tracked.local, event.user_key, 1);
  }

  /**
   * An event a crashed run accepted and left in the spool (EventPipeline.forEachRecovered), recorded
   * before any of this run: a valid keyed impression counts, as an accepted one does, until a sync
   * finds it written. Recorded before the index is built, when no line item is known to be capped
   * yet: each is kept, and each sync counts those of capped line items.
   */
  recordRecovered(event: CountedEvent): void {
    const seq = ++this.acceptedSeq;
    if (event.type !== 'impression' || event.ivt !== '' || event.user_key === '') return;
    this.unflushed.push({ seq, lineItemId: event.line_item_id, userKey: event.user_key, timeMs: event.event_time });
  }

  /**
   * Re-reads the recent hours' counts of the line items ClickHouse has new rows for (and the settled
   * hours' when the hour turned), and adds what this instance accepted that is not there yet.
   */
  async sync(nowMs = Date.now()): Promise<void> {
    this.outstanding.expire(nowMs);
    // Every cap, not only at an hour's turn: a line item capped since the last roll starts its window here.
    this.startWindows(nowMs);
    const recentFrom = windowStart('hour', nowMs) - HOUR_MS;
    const recentRange = (start: number) => ({ from: Math.max(start, recentFrom) });
    const synced = [...this.capped];
    const toSettle = synced.filter(([, tracked]) => tracked.settledBefore !== recentFrom);
    // Between the pipeline's writes: the last `unwritten` recorded events are in none of the reads, every other in all of them.
    const { writtenThroughSeq, settled, versions, changed, recent } = await this.events.readBetweenWrites(async (unwritten) => {
      const writtenThroughSeq = this.acceptedSeq - unwritten;
      const settled = await this.readCounts(toSettle, nowMs, (start) => ({ from: start, before: recentFrom }));
      const versions = await this.readVersions(synced.map(([id]) => id), recentFrom);
      const changed = synced.filter(([id, tracked]) => tracked.settledBefore !== recentFrom || (versions.get(id) ?? '') !== tracked.recentVersion);
      return { writtenThroughSeq, settled, versions, changed, recent: await this.readCounts(changed, nowMs, recentRange) };
    });
    // Everything after the last await runs without yielding: no event is recorded half-way through.
    this.unflushed = this.unflushed.filter((impression) => impression.seq > writtenThroughSeq);
    const current = new Set<TrackedCap>();
    const changedIds = new Set(changed.map(([id]) => id));
    for (const [id, tracked] of synced) {
      // A line item capped anew while the queries ran is read at the next sync, and so is a window
      // that began meanwhile (roll): it keeps what this instance counted of it.
      if (this.capped.get(id) !== tracked || tracked.windowFrom > windowStart(tracked.per, nowMs)) continue;
      current.add(tracked);
      if (tracked.settledBefore !== recentFrom) {
        tracked.settledBefore = recentFrom;
        tracked.counts.clear();
        for (const [userKey, count] of settled.get(id) ?? []) tracked.counts.set(userKey, count);
      } else {
        if (changedIds.has(id)) subtract(tracked.counts, tracked.recent);
        subtract(tracked.counts, tracked.local);
      }
      if (changedIds.has(id)) {
        tracked.recent = recent.get(id) ?? new Map();
        tracked.recentVersion = versions.get(id) ?? '';
        for (const [userKey, count] of tracked.recent) add(tracked.counts, userKey, count);
      }
      tracked.local = new Map();
    }
    for (const impression of this.unflushed) {
      const tracked = this.capped.get(impression.lineItemId);
      if (!tracked || !current.has(tracked) || impression.timeMs < windowStart(tracked.per, nowMs)) continue;
      add(tracked.counts, impression.userKey, 1);
      add(tracked.local, impression.userKey, 1);
    }
  }

  /**
   * Per line item, `rows:impressions` in frequency_hours_v1 from `from` on: a new row always changes
   * it. One query for every window: an hourly cap's range starts later, so a change before it only
   * costs a read that finds the same counts.
   */
  private async readVersions(ids: string[], from: number): Promise<Map<string, string>> {
    const versions = new Map<string, string>();
    if (ids.length === 0) return versions;
    const result = await this.ch.client.query({
      query: `SELECT toString(line_item_id) AS line_item, toString(count()) AS rows, toString(sum(impressions)) AS impressions
              FROM frequency_hours_v1
              WHERE line_item_id IN {ids:Array(UUID)} AND hour >= toDateTime({from:UInt32}, 'UTC')
              GROUP BY line_item_id`,
      query_params: { ids, from: Math.floor(from / 1000) },
      format: 'JSONEachRow',
    });
    for (const row of await result.json()) {
      const { line_item, rows, impressions } = versionRow.parse(row);
      versions.set(line_item, `${rows}:${impressions}`);
    }
    return versions;
  }

  /** frequency_hours_v1 summed per line item and user over the hours `range` gives for each window start; empty ranges are not queried. */
  private async readCounts(
    lineItems: Array<[string, TrackedCap]>,
    nowMs: number,
    range: (windowStartMs: number) => { from: number; before?: number },
  ): Promise<Map<string, UserCounts>> {
    const read = new Map<string, UserCounts>();
    // One string per user however many line items they saw: the counts stay in memory for an hour.
    const userKeys = new Map<string, string>();
    for (const [per, ids] of byWindow(lineItems)) {
      const { from, before = Infinity } = range(windowStart(per, nowMs));
      if (from >= before) continue;
      const result = await this.ch.client.query({
        query: `SELECT toString(line_item_id) AS line_item, user_key, toString(sum(impressions)) AS impressions
                FROM frequency_hours_v1
                WHERE line_item_id IN {ids:Array(UUID)} AND hour >= toDateTime({from:UInt32}, 'UTC')
                  ${before === Infinity ? '' : "AND hour < toDateTime({before:UInt32}, 'UTC')"}
                GROUP BY line_item_id, user_key`,
        query_params: { ids, from: Math.floor(from / 1000), ...(before === Infinity ? {} : { before: Math.floor(before / 1000) }) },
        format: 'JSONEachRow',
      });
      for (const row of await result.json()) {
        const { line_item, user_key, impressions } = countRow.parse(row);
        let counts = read.get(line_item);
        if (!counts) read.set(line_item, (counts = new Map()));
        let userKey = userKeys.get(user_key);
        if (userKey === undefined) userKeys.set(user_key, (userKey = user_key));
        counts.set(userKey, impressions);
      }
    }
    return read;
  }
}

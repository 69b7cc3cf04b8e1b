import type { ClickHouseClient } from '@clickhouse/client';
import { utcDay } from '../utcDays.js';
import { WRITE_CALLS, aroundClientCalls } from './clickhouseCalls.js';

/** UTC days of events, in whole days since 1970-01-01 (utcDay), first to last. */
export interface DaySpan {
  first: number;
  last: number;
}

/** The span of `span` and the event at `ms`; `span` itself is widened, or a new one made. */
export function widenDaySpan(span: DaySpan | undefined, ms: number): DaySpan {
  const day = utcDay(ms);
  if (span === undefined) return { first: day, last: day };
  if (day < span.first) span.first = day;
  else if (day > span.last) span.last = day;
  return span;
}

/**
 * Which UTC days of events the writes into embedded ClickHouse changed, as generations: every write
 * that ends (taken or failed: a failed insert may have left a part) takes the next generation and
 * marks the days it names, or every day when it names none. A write names its days by being
 * declared (`declare`): the event pipeline names its events' days, the kept reach rows name none
 * (they change no event's figure); anything else (a test's insert, a DDL, a write added later
 * without a declaration) counts as every day. So an answer read from the store at generation G
 * still holds for a window of days while `untouchedSince(G, ...)` says no write changed those days
 * after G: a write that ended before G was read, one that ends later is marked after G.
 *
 * Only embedded ClickHouse has one: its files are this process's own (directoryLock.ts), so every
 * write passes here. On a server other instances write too, and nothing here would see them.
 */
export class WrittenEventDays {
  #generation = 0;
  /** The generation of the last write that named no days. */
  #everything = 0;
  /** Per day, the generation of the last write that named it (none older than #everything). */
  readonly #byDay = new Map<number, number>();
  /** What each declared write's params named: its days, or null for none. */
  readonly #declared = new WeakMap<object, DaySpan | null>();

  /** The generation now: take it before reading, to check the answer later with untouchedSince. */
  now(): number {
    return this.#generation;
  }

  /**
   * The write of these params changes events of the days of `span` only (null: of no day). The same
   * object must then be passed to the client (withWrittenEventDays); it is returned for that.
   */
  declare<Params extends object>(params: Params, span: DaySpan | null): Params {
    this.#declared.set(params, span);
    return params;
  }

  /** A write with these params ended (called by withWrittenEventDays). */
  ended(params: object): void {
    const span = this.#declared.get(params);
    if (span === null) return;
    this.#generation += 1;
    if (span === undefined) {
      this.#everything = this.#generation;
      this.#byDay.clear();
      return;
    }
    for (let day = span.first; day <= span.last; day++) this.#byDay.set(day, this.#generation);
  }

  /** True when no write that ended after `generation` changed events of firstDay..lastDay ('YYYY-MM-DD'). */
  untouchedSince(generation: number, firstDay: string, lastDay: string): boolean {
    if (this.#everything > generation) return false;
    const first = utcDay(Date.parse(`${firstDay}T00:00:00Z`));
    const last = utcDay(Date.parse(`${lastDay}T00:00:00Z`));
    for (const [day, written] of this.#byDay) if (written > generation && day >= first && day <= last) return false;
    return true;
  }
}

/** `params` declared with `span` when the store keeps WrittenEventDays (embedded), as they are otherwise. */
export function declaredWrite<Params extends object>(days: WrittenEventDays | undefined, params: Params, span: DaySpan | null): Params {
  return days ? days.declare(params, span) : params;
}

/** The client with every write (WRITE_CALLS: command, insert) told to `days` when it ends. */
export function withWrittenEventDays(client: ClickHouseClient, days: WrittenEventDays): ClickHouseClient {
  return aroundClientCalls(client, WRITE_CALLS, async (write, params) => {
    try {
      return await write();
    } finally {
      days.ended(params);
    }
  });
}

import type { CountedEvent } from '../tracking/trackedEvent.js';
import { readServeId, serveIdParts } from './serveId.js';

/**
 * How long a serve counts as outstanding while the event it waits for has not come: against its
 * user's frequency cap until its impression (frequencyCounts.ts), and at its expected cost against
 * its line item's daily budget until its billing event (spendPacing.ts). A pixel fires when the ad is
 * rendered, seconds after its serve, and a click follows within minutes when it follows at all; one
 * that has not come after ten minutes most likely never will (the reader left), and holding the
 * serve longer would keep the line item from users and budget nobody used. An event that does come
 * later is still judged at billing time (src/tracking/billingCeiling.ts).
 */
const OUTSTANDING_SERVE_MS = 10 * 60_000;

/**
 * Outstanding serves held at most, by each ledger (the frequency caps' and pacing's, each about
 * 41 MB full, plus the frequency holds' small objects): past it the oldest stop counting early,
 * which errs on serving more, and the billing ceilings still hold.
 */
const MAX_OUTSTANDING_SERVES = 1_000_000;

/** The events a serve can wait for, by the index a slot keeps. */
const AWAITED_EVENTS: readonly CountedEvent['type'][] = ['impression', 'click', 'conversion'];

/**
 * Serves of this instance waiting for one event each (a frequency cap's impression, a price model's
 * billing event): the one home of "a serve waiting for its event". Each serve holds `amount` of
 * something on `holder` (a line item's spend counter, a capped user's count) until the event comes
 * (`arrived`) or OUTSTANDING_SERVE_MS passes, and `release(holder, amount)` then gives it back,
 * exactly once. A ring of `count` slots from `head`, one array per field, each serve id kept as
 * numbers (serveIdParts), so a serve leaves no string or Map entry for the garbage collector to keep.
 * A serve is found by the time its id begins with: serves are recorded in the order made, so their
 * times ascend. A slot's holder is undefined once it was released.
 */
export class OutstandingServes<Holder> {
  private holders: (Holder | undefined)[] = [];
  private times = new Float64Array(0);
  private idHigh = new Float64Array(0);
  private idLow = new Float64Array(0);
  private amounts = new Float64Array(0);
  private awaited = new Uint8Array(0);
  private head = 0;
  private count = 0;

  constructor(private readonly release: (holder: Holder, amount: number) => void) {}

  /**
   * Holds `amount` on `holder` until the serve's `event` arrives. A serve id of another shape, or one
   * made before the newest (the clock stepped back: its event could not find it by its time), is not
   * held: `release` is never called for it, and the caller must not have counted it (`true` when held).
   */
  hold(serveId: string, holder: Holder, amount: number, event: CountedEvent['type'], nowMs: number): boolean {
    this.expire(nowMs);
    readServeId(serveId);
    const { time, high, low } = serveIdParts;
    if (time < 0 || (this.count > 0 && time < this.times[this.slot(this.count - 1)]!)) return false;
    if (this.count === this.holders.length) this.grow();
    const slot = this.slot(this.count++);
    this.holders[slot] = holder;
    this.times[slot] = time;
    this.idHigh[slot] = high;
    this.idLow[slot] = low;
    this.amounts[slot] = amount;
    this.awaited[slot] = AWAITED_EVENTS.indexOf(event);
    return true;
  }

  /** An event of a serve: when the serve is outstanding here and waits for this type of event, its hold ends. */
  arrived(serveId: string, event: CountedEvent['type']): void {
    if (this.count === 0) return;
    readServeId(serveId);
    const { time, high, low } = serveIdParts;
    if (time < 0) return;
    // The first outstanding serve made at `time` or later, then the serves of that millisecond.
    let first = 0;
    let last = this.count;
    while (first < last) {
      const middle = (first + last) >>> 1;
      if (this.times[this.slot(middle)]! < time) first = middle + 1;
      else last = middle;
    }
    for (let i = first; i < this.count; i++) {
      const slot = this.slot(i);
      if (this.times[slot] !== time) return;
      if (this.idHigh[slot] === high && this.idLow[slot] === low) {
        if (AWAITED_EVENTS[this.awaited[slot]!] === event) this.releaseSlot(slot);
        return;
      }
    }
  }

  /** Ends the holds of the serves made OUTSTANDING_SERVE_MS or more before `nowMs`. */
  expire(nowMs: number): void {
    while (this.count > 0 && this.times[this.head]! + OUTSTANDING_SERVE_MS <= nowMs) this.releaseOldest();
  }

  /** The ring's slot of the i-th outstanding serve, oldest first. */
  private slot(i: number): number {
    const at = this.head + i;
    return at < this.holders.length ? at : at - this.holders.length;
  }

  /** Twice the room, the oldest serve first; at MAX_OUTSTANDING_SERVES, the oldest serve's hold ends early instead (errs on serving more). */
  private grow(): void {
    const capacity = this.holders.length;
    if (capacity >= MAX_OUTSTANDING_SERVES) {
      this.releaseOldest();
      return;
    }
    const grown = Math.min(MAX_OUTSTANDING_SERVES, Math.max(1024, capacity * 2));
    const holders = new Array<Holder | undefined>(grown);
    const times = new Float64Array(grown);
    const idHigh = new Float64Array(grown);
    const idLow = new Float64Array(grown);
    const amounts = new Float64Array(grown);
    const awaited = new Uint8Array(grown);
    for (let i = 0; i < this.count; i++) {
      const slot = this.slot(i);
      holders[i] = this.holders[slot];
      times[i] = this.times[slot]!;
      idHigh[i] = this.idHigh[slot]!;
      idLow[i] = this.idLow[slot]!;
      amounts[i] = this.amounts[slot]!;
      awaited[i] = this.awaited[slot]!;
    }
    this.holders = holders;
    this.times = times;
    this.idHigh = idHigh;
    this.idLow = idLow;
    this.amounts = amounts;
    this.awaited = awaited;
    this.head = 0;
  }

  private releaseOldest(): void {
    this.releaseSlot(this.head);
    this.head = this.slot(1);
    this.count -= 1;
  }

  private releaseSlot(slot: number): void {
    const holder = this.holders[slot];
    if (holder === undefined) return;
    this.holders[slot] = undefined;
    this.release(holder, this.amounts[slot]!);
  }
}

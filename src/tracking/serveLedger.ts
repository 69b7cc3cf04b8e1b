import { readServeId, serveIdParts } from '../serving/serveId.js';

/** What this process knows about one serve's tracking events. */
export interface ServeRecord {
  /** When the serve's first valid impression arrived (whole ms on the process clock: processClock.ts); 0 when none has. */
  impressionAt: number;
  /** A valid (billed) impression has been counted for the serve. */
  impressionCounted: boolean;
  /** A valid (billed) click has been counted for the serve. */
  clickCounted: boolean;
}

const IMPRESSION_COUNTED = 1;
const CLICK_COUNTED = 2;

/**
 * Per-process memory of recent serves, for duplicate and click-quality checks without a query. Each
 * serve is one number (impression time x 4 + two flags). Past the capacity the oldest serves are
 * forgotten first; a click for a forgotten serve is checked against ClickHouse instead.
 *
 * Serve ids as serving makes them (serveId.ts) are kept as numbers (serveIdParts) in typed arrays,
 * found through an open-addressing index: every pixel looks its serve up and records it, and in a
 * Map each serve's id string stayed alive, so the young generation's collections copied one
 * string a pixel into the old one, and the old one's marked a million of them (bench/README.md,
 * "Pixel: session 41"). About 40 MB at a million serves, pages touched only as serves come. Ids of
 * any other shape (serves of releases before time-first ids, forged ids in valid-looking tokens
 * never reach here) go to a Map of the same capacity, the oldest forgotten first there too.
 */
export class ServeLedger {
  private readonly others = new Map<string, number>();
  /** The serves in the order first recorded, a ring of `capacity` slots from `head`. */
  private readonly times: Float64Array;
  private readonly highs: Float64Array;
  private readonly lows: Float64Array;
  private readonly packed: Float64Array;
  private head = 0;
  private count = 0;
  /** Slot + 1 of each serve at its hash's position or after (linear probing); 0 is an empty position. */
  private readonly index: Int32Array;
  private readonly mask: number;

  constructor(private readonly capacity: number) {
    this.times = new Float64Array(capacity);
    this.highs = new Float64Array(capacity);
    this.lows = new Float64Array(capacity);
    this.packed = new Float64Array(capacity);
    // At most half full: probes stay short.
    let positions = 16;
    while (positions < capacity * 2) positions *= 2;
    this.index = new Int32Array(positions);
    this.mask = positions - 1;
  }

  get(serveId: string): ServeRecord | undefined {
    const packed = this.packedOf(serveId);
    if (packed === undefined) return undefined;
    return {
      impressionAt: Math.floor(packed / 4),
      impressionCounted: (packed & IMPRESSION_COUNTED) !== 0,
      clickCounted: (packed & CLICK_COUNTED) !== 0,
    };
  }

  /** Whether a valid impression of the serve was counted: get(serveId)?.impressionCounted without a record made (every pixel asks). */
  impressionCounted(serveId: string): boolean {
    return (((this.packedOf(serveId) ?? 0) % 4) & IMPRESSION_COUNTED) !== 0;
  }

  /** Merges what was learned: the earliest impression time wins, and a counted flag never goes back. */
  record(serveId: string, update: Partial<ServeRecord>): void {
    // Read packed, not through get(): every pixel records, and a record object per call is garbage.
    const packed = this.packedOf(serveId);
    const impressionAt = earliest(packed === undefined ? 0 : Math.floor(packed / 4), update.impressionAt ?? 0);
    const flags =
      ((packed ?? 0) % 4) |
      (update.impressionCounted ? IMPRESSION_COUNTED : 0) |
      (update.clickCounted ? CLICK_COUNTED : 0);
    this.set(serveId, impressionAt * 4 + flags);
  }

  /**
   * Takes back a counted impression whose spool write failed (answered 503, stored nowhere): the
   * serve's next impression is then billed, not called a duplicate of nothing. A click counted
   * meanwhile stays counted.
   */
  uncountImpression(serveId: string): void {
    const packed = this.packedOf(serveId);
    // Arithmetic, not `&`: the packed time is beyond 32 bits, which a bitwise operator would cut off.
    if (packed !== undefined) this.set(serveId, packed - ((packed % 4) & IMPRESSION_COUNTED));
  }

  /** Takes back a counted click that was not stored (answered 503): the serve's next click is then billed, not called a duplicate of nothing. */
  uncountClick(serveId: string): void {
    const packed = this.packedOf(serveId);
    if (packed !== undefined) this.set(serveId, packed - ((packed % 4) & CLICK_COUNTED));
  }

  /** The serve's packed number; undefined when it is not remembered. Leaves serveIdParts set to the id's. */
  private packedOf(serveId: string): number | undefined {
    readServeId(serveId);
    if (serveIdParts.time < 0) return this.others.get(serveId);
    const slot = this.slotOf(this.find());
    return slot < 0 ? undefined : this.packed[slot];
  }

  /** Sets the serve's packed number, as the serve known or as the newest. Expects serveIdParts of its id (packedOf). */
  private set(serveId: string, packed: number): void {
    if (serveIdParts.time < 0) {
      if (!this.others.has(serveId) && this.others.size >= this.capacity) {
        // Map iteration follows insertion order: the first key is the oldest serve.
        this.others.delete(this.others.keys().next().value!);
      }
      this.others.set(serveId, packed);
      return;
    }
    let position = this.find();
    const known = this.slotOf(position);
    if (known >= 0) {
      this.packed[known] = packed;
      return;
    }
    if (this.count === this.capacity) {
      this.forgetOldest();
      // Forgetting moved later positions back: look for the free one again.
      position = this.find();
    }
    const slot = (this.head + this.count) % this.capacity;
    this.count += 1;
    this.times[slot] = serveIdParts.time;
    this.highs[slot] = serveIdParts.high;
    this.lows[slot] = serveIdParts.low;
    this.packed[slot] = packed;
    this.index[position] = slot + 1;
  }

  /** The index position of serveIdParts' serve, or of the empty position where it would go. */
  private find(): number {
    const { time, high, low } = serveIdParts;
    for (let position = this.home(time, high, low); ; position = (position + 1) & this.mask) {
      const entry = this.index[position]!;
      if (entry === 0) return position;
      const slot = entry - 1;
      if (this.lows[slot] === low && this.highs[slot] === high && this.times[slot] === time) return position;
    }
  }

  /** The slot at an index position; -1 when it is empty. */
  private slotOf(position: number): number {
    return this.index[position]! - 1;
  }

  private home(time: number, high: number, low: number): number {
    // The low 32 bits of each part (ToInt32), mixed: the random characters are in high and low.
    return Math.imul(low ^ Math.imul(high ^ time, 0x85ebca6b), 0x9e3779b1) & this.mask;
  }

  /** Drops the oldest serve: its index position is emptied and the positions after it moved back (no tombstones). */
  private forgetOldest(): void {
    const slot = this.head;
    let free = this.home(this.times[slot]!, this.highs[slot]!, this.lows[slot]!);
    while (this.index[free] !== slot + 1) free = (free + 1) & this.mask;
    for (let position = (free + 1) & this.mask; this.index[position] !== 0; position = (position + 1) & this.mask) {
      const moved = this.index[position]! - 1;
      const home = this.home(this.times[moved]!, this.highs[moved]!, this.lows[moved]!);
      // It may take the free position when that lies between its home and where it is (cyclically).
      if (((position - home) & this.mask) >= ((position - free) & this.mask)) {
        this.index[free] = this.index[position]!;
        free = position;
      }
    }
    this.index[free] = 0;
    this.head = (this.head + 1) % this.capacity;
    this.count -= 1;
  }
}

function earliest(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}

/** What this process knows about one serve's tracking events. */
export interface ServeRecord {
  /** When the serve's first valid impression arrived (ms since the epoch); 0 when none has. */
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
 * serve is one number in a Map (impression time x 4 + two flags), about 100 bytes with its key, so
 * the default million serves cost ~100 MB. Past the capacity the oldest serves are forgotten first;
 * a click for a forgotten serve is checked against ClickHouse instead.
 */
export class ServeLedger {
  private readonly serves = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  get(serveId: string): ServeRecord | undefined {
    const packed = this.serves.get(serveId);
    if (packed === undefined) return undefined;
    return {
      impressionAt: Math.floor(packed / 4),
      impressionCounted: (packed & IMPRESSION_COUNTED) !== 0,
      clickCounted: (packed & CLICK_COUNTED) !== 0,
    };
  }

  /** Whether a valid impression of the serve was counted: get(serveId)?.impressionCounted without a record made (every pixel asks). */
  impressionCounted(serveId: string): boolean {
    return ((this.serves.get(serveId) ?? 0) % 4 & IMPRESSION_COUNTED) !== 0;
  }

  /** Merges what was learned: the earliest impression time wins, and a counted flag never goes back. */
  record(serveId: string, update: Partial<ServeRecord>): void {
    // Read packed, not through get(): every pixel records, and a record object per call is garbage.
    const packed = this.serves.get(serveId);
    const impressionAt = earliest(packed === undefined ? 0 : Math.floor(packed / 4), update.impressionAt ?? 0);
    const flags =
      ((packed ?? 0) % 4) |
      (update.impressionCounted ? IMPRESSION_COUNTED : 0) |
      (update.clickCounted ? CLICK_COUNTED : 0);
    if (packed === undefined && this.serves.size >= this.capacity) {
      // Map iteration follows insertion order: the first key is the oldest serve.
      this.serves.delete(this.serves.keys().next().value!);
    }
    this.serves.set(serveId, impressionAt * 4 + flags);
  }

  /**
   * Takes back a counted impression whose spool write failed (answered 503, stored nowhere): the
   * serve's next impression is then billed, not called a duplicate of nothing. A click counted
   * meanwhile stays counted.
   */
  uncountImpression(serveId: string): void {
    const packed = this.serves.get(serveId);
    // Arithmetic, not `&`: the packed time is beyond 32 bits, which a bitwise operator would cut off.
    if (packed !== undefined) this.serves.set(serveId, packed - (packed % 4 & IMPRESSION_COUNTED));
  }
}

function earliest(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}

/** The two windows the velocity rules count in: 10 s and 10 minutes. */
const SHORT_MS = 10_000;
const LONG_MS = 600_000;

/**
 * One key's counts per window (10 s and 10 minutes): the bucket (time / window length) counted
 * last, its count and the count of the bucket before it. Small integers in a plain object: nothing
 * for the collector to trace on the pixel path.
 *
 * The usual sliding-window counter: each window is counted in buckets of its own length, the bucket
 * before the current one weighted by the share of it the sliding window still covers (`shortIn`,
 * `longIn`), exact for an even pace and off by at most the previous bucket's unevenness otherwise.
 */
export interface Counts {
  shortBucket: number;
  shortCount: number;
  shortBefore: number;
  longBucket: number;
  longCount: number;
  longBefore: number;
}

export function freshCounts(): Counts {
  return { shortBucket: -2, shortCount: 0, shortBefore: 0, longBucket: -2, longCount: 0, longBefore: 0 };
}

/**
 * Each window's current bucket, with the one before it rolled in when time has moved on. A time
 * before the current bucket (a clock stepped back, or a caller's events out of order) counts in the
 * current bucket rather than wiping it.
 */
export function roll(counts: Counts, nowMs: number): void {
  const shortBucket = Math.floor(nowMs / SHORT_MS);
  if (shortBucket > counts.shortBucket) {
    counts.shortBefore = shortBucket === counts.shortBucket + 1 ? counts.shortCount : 0;
    counts.shortCount = 0;
    counts.shortBucket = shortBucket;
  }
  const longBucket = Math.floor(nowMs / LONG_MS);
  if (longBucket > counts.longBucket) {
    counts.longBefore = longBucket === counts.longBucket + 1 ? counts.longCount : 0;
    counts.longCount = 0;
    counts.longBucket = longBucket;
  }
}

/** The count in the 10 s before nowMs (after `roll`). */
export function shortIn(counts: Counts, nowMs: number): number {
  return counts.shortCount + counts.shortBefore * (1 - (nowMs % SHORT_MS) / SHORT_MS);
}

/** The count in the 10 minutes before nowMs (after `roll`). */
export function longIn(counts: Counts, nowMs: number): number {
  return counts.longCount + counts.longBefore * (1 - (nowMs % LONG_MS) / LONG_MS);
}

/**
 * Each key's counts in two generations, the current map and the one before it, swapped every 10
 * minutes (LONG_MS) or when the current one holds `capacity` keys: a key not counted for 10 minutes
 * has nothing left to say, memory stays bounded (two maps of at most `capacity` keys) whatever the
 * traffic, and a key dropped early only ever lets events through.
 */
export class KeyGenerations<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();
  private swappedAt = 0;
  private swaps = 0;

  constructor(
    private readonly capacity: number,
    private readonly fresh: () => V,
  ) {}

  /**
   * The current generation's number at nowMs, after the swap `of` would make first. A key `of` gave
   * while this number stayed the same is still in the current generation: `of` would give the same
   * counts and change nothing, so a caller holding them may skip the key and the lookup.
   */
  generationAt(nowMs: number): number {
    if (nowMs - this.swappedAt >= LONG_MS || this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Map();
      this.swappedAt = nowMs;
      this.swaps++;
    }
    return this.swaps;
  }

  /** The key's counts, carried into the current generation (fresh when neither generation holds them). */
  of(key: string, nowMs: number): V {
    this.generationAt(nowMs);
    let counts = this.current.get(key);
    if (counts !== undefined) return counts;
    counts = this.previous.get(key) ?? this.fresh();
    this.current.set(key, counts);
    return counts;
  }

  /** The key's counts if either generation holds them, without carrying them over. */
  peek(key: string): V | undefined {
    return this.current.get(key) ?? this.previous.get(key);
  }
}

/** At most `events` in any `windowMs`: the next one is beyond it. */
export interface WindowLimit {
  events: number;
  windowMs: number;
}

/** A key's latest counted times, a ring of the most events any limit allows. */
interface Ring {
  times: Float64Array;
  /** Where the next time goes. */
  next: number;
  size: number;
}

/**
 * Sliding-window rate limits per key, in memory: whether one more event of a key would be beyond a
 * limit, and counting it. Each key keeps the times of its last N counted events in a ring (N the
 * largest `events` of the limits), so a check reads one slot per limit and a count writes one:
 * O(1) whatever the limits. Past `capacity` keys the key counted least recently is forgotten first,
 * which only ever lets an event through, never holds one back. Memory: capacity x (8 N + about
 * 150) bytes.
 */
export class SlidingWindowLimits {
  private readonly rings = new Map<string, Ring>();
  private readonly kept: number;

  constructor(
    private readonly limits: readonly WindowLimit[],
    private readonly capacity: number,
  ) {
    this.kept = Math.max(...limits.map((limit) => limit.events));
  }

  /** Whether an event of `key` at nowMs would be beyond a limit, counting only what count() counted. */
  over(key: string, nowMs: number): boolean {
    const ring = this.rings.get(key);
    if (ring === undefined) return false;
    return this.limits.some(({ events, windowMs }) => {
      if (ring.size < events) return false;
      // The events-th most recent counted time.
      const nth = ring.times[(ring.next - events + this.kept) % this.kept]!;
      return nowMs - nth < windowMs;
    });
  }

  count(key: string, nowMs: number): void {
    let ring = this.rings.get(key);
    if (ring === undefined) ring = { times: new Float64Array(this.kept), next: 0, size: 0 };
    ring.times[ring.next] = nowMs;
    ring.next = (ring.next + 1) % this.kept;
    ring.size = Math.min(ring.size + 1, this.kept);
    // Deleted and set again, so the Map's insertion order is the order keys were last counted in.
    this.rings.delete(key);
    if (this.rings.size >= this.capacity) this.rings.delete(this.rings.keys().next().value!);
    this.rings.set(key, ring);
  }
}

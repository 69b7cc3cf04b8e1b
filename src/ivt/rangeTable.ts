/**
 * Inclusive address ranges, sorted and merged into typed arrays and found by binary search: a lookup
 * is O(log n) over a few hundred KB of memory, where node's net.BlockList scans every rule.
 *
 * A key is one 32-bit word (IPv4) or two (the top 64 bits of an IPv6 address: routing happens on /64
 * and shorter prefixes, so the interface bits say nothing about the network).
 */
export class RangeTable {
  constructor(
    private readonly words: 1 | 2,
    private readonly starts: Uint32Array,
    private readonly ends: Uint32Array,
    private readonly labelIndexes: Uint32Array,
    private readonly labels: readonly string[],
  ) {}

  /** A table built in another thread, from what parts() sent. */
  static fromParts(parts: RangeTableParts): RangeTable {
    return new RangeTable(parts.words, parts.starts, parts.ends, parts.labelIndexes, parts.labels);
  }

  /** What the table is made of, to send it to another thread (the arrays' buffers can be transferred). */
  parts(): RangeTableParts {
    return { words: this.words, starts: this.starts, ends: this.ends, labelIndexes: this.labelIndexes, labels: this.labels };
  }

  get size(): number {
    return this.labelIndexes.length;
  }

  /** The label of the range holding the key, or undefined. `low` is ignored for one-word tables. */
  find(high: number, low = 0): string | undefined {
    let first = 0;
    let last = this.labelIndexes.length - 1;
    let candidate = -1;
    while (first <= last) {
      const middle = (first + last) >>> 1;
      if (this.compare(this.starts, middle, high, low) <= 0) {
        candidate = middle;
        first = middle + 1;
      } else {
        last = middle - 1;
      }
    }
    if (candidate < 0 || this.compare(this.ends, candidate, high, low) < 0) return undefined;
    return this.labels[this.labelIndexes[candidate]!];
  }

  /** Sign of (stored key at index) - (high, low); the differences of uint32 values are exact in doubles. */
  private compare(keys: Uint32Array, index: number, high: number, low: number): number {
    if (this.words === 1) return keys[index]! - high;
    const difference = keys[2 * index]! - high;
    return difference !== 0 ? difference : keys[2 * index + 1]! - low;
  }
}

export interface RangeTableParts {
  words: 1 | 2;
  starts: Uint32Array;
  ends: Uint32Array;
  labelIndexes: Uint32Array;
  labels: readonly string[];
}

interface PendingRange {
  start: bigint;
  end: bigint;
  label: number;
}

/**
 * Collects ranges in any order (bigint bounds, so one builder serves 32- and 64-bit keys), then
 * sorts and merges them. Adjacent or overlapping ranges with the same label become one; where ranges
 * with different labels overlap, the one that starts first keeps the overlap.
 */
export class RangeTableBuilder {
  private readonly ranges: PendingRange[] = [];
  private readonly labels: string[] = [];
  private readonly labelIndex = new Map<string, number>();

  constructor(private readonly words: 1 | 2) {}

  add(start: bigint, end: bigint, label: string): void {
    if (end < start) return;
    let index = this.labelIndex.get(label);
    if (index === undefined) {
      index = this.labels.push(label) - 1;
      this.labelIndex.set(label, index);
    }
    this.ranges.push({ start, end, label: index });
  }

  build(): RangeTable {
    this.ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.label - b.label));
    const merged: PendingRange[] = [];
    for (const range of this.ranges) {
      const previous = merged[merged.length - 1];
      if (previous && range.start <= previous.end + 1n) {
        if (range.end <= previous.end) continue;
        if (range.label === previous.label) {
          previous.end = range.end;
          continue;
        }
        if (range.start <= previous.end) range.start = previous.end + 1n;
      }
      merged.push({ ...range });
    }
    const starts = new Uint32Array(merged.length * this.words);
    const ends = new Uint32Array(merged.length * this.words);
    const labelIndexes = new Uint32Array(merged.length);
    merged.forEach((range, index) => {
      this.write(starts, index, range.start);
      this.write(ends, index, range.end);
      labelIndexes[index] = range.label;
    });
    return new RangeTable(this.words, starts, ends, labelIndexes, this.labels);
  }

  private write(keys: Uint32Array, index: number, value: bigint): void {
    if (this.words === 1) {
      keys[index] = Number(value);
      return;
    }
    keys[2 * index] = Number(value >> 32n);
    keys[2 * index + 1] = Number(value & 0xffffffffn);
  }
}

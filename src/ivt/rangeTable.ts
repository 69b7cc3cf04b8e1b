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

/** What a builder has collected: every range as it was added, before the sort and the merge. */
export interface CollectedRanges {
  words: 1 | 2;
  startHigh: Uint32Array;
  startLow: Uint32Array;
  endHigh: Uint32Array;
  endLow: Uint32Array;
  labelOf: Uint32Array;
  labels: readonly string[];
}

const LOW_WORD = 0xffffffffn;

/**
 * Collects ranges in any order (bigint bounds, so one builder serves 32- and 64-bit keys; or
 * numbers for 32-bit keys: addNumbers), then sorts and merges them. Adjacent or overlapping ranges
 * with the same label become one; where ranges with different labels overlap, the one that starts
 * first keeps the overlap. The ranges are kept as words in number arrays, not an object of bigints
 * each: the country tables' 550,000 rows were 1.5 s of a worker's CPU at start, most of it
 * allocation and its GC, beside the start's main thread on a 2-core machine.
 */
export class RangeTableBuilder {
  /** Each range's bounds as [high, low] words (high 0 for one-word keys), and its label's index. */
  private readonly startHigh: number[] = [];
  private readonly startLow: number[] = [];
  private readonly endHigh: number[] = [];
  private readonly endLow: number[] = [];
  private readonly labelOf: number[] = [];
  private readonly labels: string[] = [];
  private readonly labelIndex = new Map<string, number>();

  constructor(private readonly words: 1 | 2) {}

  /**
   * A builder holding what collected() gave, in the same order under the same label numbers, so
   * that adding the same ranges after it builds the same table as the builder it came from.
   */
  static of(collected: CollectedRanges): RangeTableBuilder {
    const builder = new RangeTableBuilder(collected.words);
    for (const label of collected.labels) builder.labelIndex.set(label, builder.labels.push(label) - 1);
    for (let i = 0; i < collected.labelOf.length; i++) {
      builder.startHigh.push(collected.startHigh[i]!);
      builder.startLow.push(collected.startLow[i]!);
      builder.endHigh.push(collected.endHigh[i]!);
      builder.endLow.push(collected.endLow[i]!);
      builder.labelOf.push(collected.labelOf[i]!);
    }
    return builder;
  }

  /** The ranges added so far, to keep them in a file (networkTables.ts keeps the ASN files' ranges). */
  collected(): CollectedRanges {
    return {
      words: this.words,
      startHigh: Uint32Array.from(this.startHigh),
      startLow: Uint32Array.from(this.startLow),
      endHigh: Uint32Array.from(this.endHigh),
      endLow: Uint32Array.from(this.endLow),
      labelOf: Uint32Array.from(this.labelOf),
      labels: [...this.labels],
    };
  }

  add(start: bigint, end: bigint, label: string): void {
    if (end < start) return;
    this.push(Number(start >> 32n), Number(start & LOW_WORD), Number(end >> 32n), Number(end & LOW_WORD), label);
  }

  /** add() for a one-word table, its keys as numbers (exact below 2^32): no bigint made. */
  addNumbers(start: number, end: number, label: string): void {
    if (end < start) return;
    this.push(0, start, 0, end, label);
  }

  build(): RangeTable {
    const count = this.labelOf.length;
    const order = this.sortedOrder();
    const words = this.words;
    const starts = new Uint32Array(count * words);
    const ends = new Uint32Array(count * words);
    const labelIndexes = new Uint32Array(count);
    // The merged ranges so far, the last one's end kept in words until it is written.
    let merged = 0;
    let lastEndHigh = 0;
    let lastEndLow = 0;
    for (let k = 0; k < count; k++) {
      const i = order === undefined ? k : order[k]!;
      let startHigh = this.startHigh[i]!;
      let startLow = this.startLow[i]!;
      const endHigh = this.endHigh[i]!;
      const endLow = this.endLow[i]!;
      const label = this.labelOf[i]!;
      if (merged > 0) {
        // The key after the last range's end (words may reach 2^32 there: numbers, not uint32).
        const nextHigh = lastEndLow === 0xffffffff ? lastEndHigh + 1 : lastEndHigh;
        const nextLow = lastEndLow === 0xffffffff ? 0 : lastEndLow + 1;
        if (compareKeys(startHigh, startLow, nextHigh, nextLow) <= 0) {
          if (compareKeys(endHigh, endLow, lastEndHigh, lastEndLow) <= 0) continue;
          if (label === labelIndexes[merged - 1]) {
            lastEndHigh = endHigh;
            lastEndLow = endLow;
            continue;
          }
          if (compareKeys(startHigh, startLow, lastEndHigh, lastEndLow) <= 0) {
            startHigh = nextHigh;
            startLow = nextLow;
          }
        }
        this.write(ends, merged - 1, lastEndHigh, lastEndLow);
      }
      this.write(starts, merged, startHigh, startLow);
      labelIndexes[merged] = label;
      lastEndHigh = endHigh;
      lastEndLow = endLow;
      merged += 1;
    }
    if (merged > 0) this.write(ends, merged - 1, lastEndHigh, lastEndLow);
    return new RangeTable(words, starts.slice(0, merged * words), ends.slice(0, merged * words), labelIndexes.slice(0, merged), this.labels);
  }

  private push(startHigh: number, startLow: number, endHigh: number, endLow: number, label: string): void {
    let index = this.labelIndex.get(label);
    if (index === undefined) {
      index = this.labels.push(label) - 1;
      this.labelIndex.set(label, index);
    }
    this.startHigh.push(startHigh);
    this.startLow.push(startLow);
    this.endHigh.push(endHigh);
    this.endLow.push(endLow);
    this.labelOf.push(index);
  }

  /**
   * The ranges' order by start, then label, the order they came in for equal ones; undefined when
   * they came in that order (the package's files are sorted by start), which needs no sort.
   */
  private sortedOrder(): number[] | undefined {
    const before = (a: number, b: number) =>
      compareKeys(this.startHigh[a]!, this.startLow[a]!, this.startHigh[b]!, this.startLow[b]!) || this.labelOf[a]! - this.labelOf[b]!;
    let sorted = true;
    for (let i = 1; i < this.labelOf.length && sorted; i++) sorted = before(i - 1, i) <= 0;
    if (sorted) return undefined;
    // Array.prototype.sort is stable: equal ranges keep the order they came in.
    return Array.from(this.labelOf, (_, i) => i).sort(before);
  }

  private write(keys: Uint32Array, index: number, high: number, low: number): void {
    if (this.words === 1) {
      keys[index] = low;
      return;
    }
    keys[2 * index] = high;
    keys[2 * index + 1] = low;
  }
}

/** Sign of key a - key b, each [high, low] words; the differences of uint32 values are exact in doubles. */
function compareKeys(aHigh: number, aLow: number, bHigh: number, bLow: number): number {
  return aHigh - bHigh || aLow - bLow;
}

/** Filter bits per first word: about one word in 16 that starts nothing still reaches the map. */
const BITS_PER_KEY = 16;
/** 2 KB: as small as the filter gets, and what brand safety's few hundred phrases need. */
const MIN_BITS = 16384;
/** 128 KB: past this (over 65,000 first words) a larger filter would miss the cache as the map does. */
const MAX_BITS = 1 << 20;

/**
 * Phrases by the wordHash of their first word, behind a bit filter of those hashes (hash mod the
 * filter's size): a word whose bit is clear starts no phrase, decided from a few KB that stay in
 * cache. Most words of a serve's context start none, and the map's probe of each word's hash was
 * three quarters of brand safety's phrase check under load (bench/README.md, "Serve: session 29").
 * A removed hash leaves its bit set (another hash may share it) until the filter is remade, after as
 * many removals as the map holds hashes or when it outgrows its size; a stale bit costs a probe only.
 */
export class FirstWordMap<T> {
  private readonly byHash = new Map<number, T[]>();
  private bits = new Uint32Array(MIN_BITS / 32);
  private mask = MIN_BITS - 1;
  private removals = 0;

  /** The phrases whose first word has this hash, or undefined. */
  get(hash: number): T[] | undefined {
    if ((this.bits[(hash & this.mask) >>> 5]! & (1 << (hash & 31))) === 0) return undefined;
    return this.byHash.get(hash);
  }

  add(hash: number, phrase: T): void {
    const list = this.byHash.get(hash);
    if (list !== undefined) {
      list.push(phrase);
      return;
    }
    this.byHash.set(hash, [phrase]);
    if (this.byHash.size * BITS_PER_KEY > this.mask + 1 && this.mask + 1 < MAX_BITS) this.remake();
    else this.setBit(hash);
  }

  remove(hash: number, phrase: T): void {
    const list = this.byHash.get(hash);
    if (list === undefined) return;
    const left = list.filter((other) => other !== phrase);
    if (left.length > 0) {
      this.byHash.set(hash, left);
      return;
    }
    this.byHash.delete(hash);
    this.removals += 1;
    if (this.removals > this.byHash.size) this.remake();
  }

  /** A filter of the map's hashes alone, sized for them. */
  private remake(): void {
    let size = MIN_BITS;
    while (size < MAX_BITS && size < this.byHash.size * BITS_PER_KEY) size *= 2;
    this.bits = new Uint32Array(size / 32);
    this.mask = size - 1;
    this.removals = 0;
    for (const hash of this.byHash.keys()) this.setBit(hash);
  }

  private setBit(hash: number): void {
    this.bits[(hash & this.mask) >>> 5]! |= 1 << (hash & 31);
  }
}

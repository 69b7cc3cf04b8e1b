import { WordScan, wordHash } from '../serving/contextWords.js';
import { sifWeight } from './sifWeight.js';
import type { WordVectors } from './wordVectorsFile.js';
import { wordSumKernel, type WordSumKernel } from './wordSumKernel.js';

/** Words of a serve's context that are embedded: a long answer's opening says what it is about, and the cost stays bounded. */
export const MAX_EMBEDDED_WORDS = 400;
/** Words the sum kernel adds up per call: at least MAX_EMBEDDED_WORDS, so that a conversation is one call. */
const BATCH_WORDS = 512;
const PAGE_BYTES = 65536;
const CACHE_LINE_BYTES = 64;
/** Ints at the start of a slot of the word table: hash, rank + 1, check hash, weight (as float32 bits); the row follows. */
const HEADER_INTS = 4;

/**
 * A second 32-bit hash of the word text[start, end) (murmur-style mixing, seeded with its length),
 * independent of wordHash's FNV-1a: together they identify a word without comparing its letters.
 */
export function checkHash(text: string, start: number, end: number): number {
  let hash = Math.imul(end - start, 0x9e3779b1);
  for (let at = start; at < end; at++) {
    hash = Math.imul(hash ^ text.charCodeAt(at), 0x5bd1e995);
    hash ^= hash >>> 15;
  }
  return hash;
}

/** Bytes of one slot of the word table for vectors of this many dimensions: the header, then the row in whole blocks of 16, in whole cache lines. */
function slotBytes(dimensions: number): number {
  return Math.ceil((HEADER_INTS * 4 + Math.ceil(dimensions / 16) * 16) / CACHE_LINE_BYTES) * CACHE_LINE_BYTES;
}

/**
 * What a SemanticModel is made of, in typed arrays only: built from the vectors by wordTables, in a
 * worker thread at start (wordTablesWorker.ts, 0.2 s off the main thread) and moved, not copied.
 */
export interface WordTables {
  dimensions: number;
  wordCount: number;
  commonDirection: Float32Array;
  /** The word table, slotBytes(dimensions) bytes a slot (see SemanticModel.slots). */
  slots: Int32Array;
  /** The vectors file's (WordVectors.fingerprint). */
  fingerprint?: string;
}

export function wordTables(vectors: WordVectors): WordTables {
  const { dimensions } = vectors;
  const wordCount = vectors.words.length;
  const slotInts = slotBytes(dimensions) / 4;
  const slotCount = 2 ** Math.ceil(Math.log2(Math.max(2, wordCount * 2)));
  const slots = new Int32Array(slotCount * slotInts);
  const slotWeights = new Float32Array(slots.buffer);
  const slotComponents = new Int8Array(slots.buffer);
  const slotMask = slotCount - 1;
  vectors.words.forEach((word, rank) => {
    const hash = wordHash(word);
    const check = checkHash(word, 0, word.length);
    let slot = hash & slotMask;
    for (; slots[slot * slotInts + 1] !== 0; slot = (slot + 1) & slotMask) {
      // Inserted in rank order: of two words with both hashes equal (none in the shipped vocabulary), the more frequent is kept.
      if (slots[slot * slotInts] === hash && slots[slot * slotInts + 2] === check) return;
    }
    const at = slot * slotInts;
    slots[at] = hash;
    slots[at + 1] = rank + 1;
    slots[at + 2] = check;
    slotWeights[at + 3] = sifWeight(rank) * vectors.scales[rank]!;
    slotComponents.set(vectors.components.subarray(rank * dimensions, (rank + 1) * dimensions), (at + HEADER_INTS) * 4);
  });
  return { dimensions, wordCount, commonDirection: Float32Array.from(vectors.commonDirection), slots, ...(vectors.fingerprint ? { fingerprint: vectors.fingerprint } : {}) };
}

/**
 * Embeds texts as SIF vectors (Arora et al. 2017): the average of word vectors weighted by
 * a / (a + p(word)), with the common direction removed, scaled to unit length. Words are looked
 * up by the same hash the keyword matcher computes, so a serve's words are never copied.
 */
export class SemanticModel {
  readonly dimensions: number;
  /** Words in the vocabulary; ranks are 0 (most frequent) to wordCount - 1. */
  readonly wordCount: number;
  /** Unit vector SIF removes from every text's sum (see finish). */
  readonly commonDirection: Float32Array;
  /** The sha256 of the vectors file this model was read from; undefined when made in memory. */
  readonly fingerprint: string | undefined;
  /**
   * Open addressing over wordHash (linear probing, at most half full), in the sum kernel's memory:
   * one slot per word of whole cache lines (128 bytes for 100 dimensions), holding the word's hash,
   * rank + 1 (0 is empty), a second hash of the word (checkHash), its SIF weight x quantization scale
   * (so that a component times this is its weighted value), then its int8 row padded to whole blocks
   * of 16. A lookup finds the word's row where it finds the word: one pair of adjacent cache lines and
   * one page a word. With the rows in a rank-indexed array of their own, a rare word cost two
   * dependent cache misses and two pages (the slot, then the row) when a serve runs with cold caches
   * (in the service, between two serves, parsing and writing answers evict them); earlier the words'
   * strings, a weight array and separate hash and rank arrays cost five more.
   *
   * The two hashes (64 bits) identify the word: a word outside the vocabulary is taken for one in it
   * only if both collide, about once in 10^14 lookups (of two vocabulary words sharing both, the
   * more frequent would be kept: the shipped vocabulary has none, a unit test checks).
   */
  private readonly slots: Int32Array;
  private readonly slotWeights: Float32Array;
  private readonly slotMask: number;
  private readonly slotInts: number;
  /** Each rank's slot (its first int): for wordRow. */
  private readonly slotOfRank: Int32Array;
  private readonly scratch = new WordScan();
  /**
   * In the sum kernel's memory after the word table: a batch of words' two hashes to look up and add
   * up, the sum's float32 components (and, finished, its squared length before scaling), and the
   * common direction.
   */
  private readonly kernel: WordSumKernel;
  private readonly layout: { hashes: number; checks: number; out: number; common: number };
  private readonly staged: { hashes: Int32Array; checks: Int32Array; out: Float32Array; norm: Float64Array };
  /** Words staged for the next kernel call. */
  private batched = 0;
  /** Words of the text being embedded found in the table so far. */
  private known = 0;
  /** embedConversation's result. */
  private readonly conversation: Float32Array;
  /** addEmbedding's text vector, before it is added. */
  private readonly part: Float32Array;

  /** From the vectors, or from their tables built elsewhere (a worker thread at start: loadSemanticMatching). */
  constructor(source: WordVectors | WordTables) {
    const tables = 'slots' in source ? source : wordTables(source);
    this.dimensions = tables.dimensions;
    this.wordCount = tables.wordCount;
    this.commonDirection = tables.commonDirection;
    this.fingerprint = tables.fingerprint;
    this.conversation = new Float32Array(this.dimensions);
    this.part = new Float32Array(this.dimensions);
    this.slotInts = slotBytes(this.dimensions) / 4;
    const blocks = Math.ceil(this.dimensions / 16);
    this.kernel = wordSumKernel(this.dimensions, blocks, tables.slots.length / this.slotInts, this.slotInts * 4);
    const hashes = tables.slots.byteLength;
    const checks = hashes + BATCH_WORDS * 4;
    const out = checks + BATCH_WORDS * 4;
    // The kernel writes the sum's blocks x 16 floats at out, then one int and a float64 (see wordSumKernel.ts).
    const common = out + blocks * 64 + 16;
    this.layout = { hashes, checks, out, common };
    const memory = this.kernel.memory;
    memory.grow(Math.max(0, Math.ceil((common + this.dimensions * 4 - memory.buffer.byteLength) / PAGE_BYTES)));
    new Float32Array(memory.buffer, common, this.dimensions).set(this.commonDirection);
    this.slots = new Int32Array(memory.buffer, 0, tables.slots.length);
    this.slots.set(tables.slots);
    this.staged = {
      hashes: new Int32Array(memory.buffer, hashes, BATCH_WORDS),
      checks: new Int32Array(memory.buffer, checks, BATCH_WORDS),
      out: new Float32Array(memory.buffer, out, this.dimensions),
      norm: new Float64Array(memory.buffer, out + blocks * 64 + 8, 1),
    };
    this.slotWeights = new Float32Array(memory.buffer, 0, this.slots.length);
    this.slotMask = this.slots.length / this.slotInts - 1;
    this.slotOfRank = new Int32Array(this.wordCount).fill(-1);
    for (let at = 0; at < this.slots.length; at += this.slotInts) if (this.slots[at + 1] !== 0) this.slotOfRank[this.slots[at + 1]! - 1] = at;
  }

  /**
   * For a caller that keeps its own data per word (topicBound.ts): each word in the table, as the
   * lookup knows it (its two hashes), with its rank and weight (SIF weight x quantization scale).
   */
  forEachWord(visit: (hash: number, check: number, rank: number, weight: number) => void): void {
    for (let at = 0; at < this.slots.length; at += this.slotInts) {
      if (this.slots[at + 1] !== 0) visit(this.slots[at]!, this.slots[at + 2]!, this.slots[at + 1]! - 1, this.slotWeights[at + 3]!);
    }
  }

  /** The slot of the word text[start, end) with this hash (see slotRank, slotWeight), or -1 when it has no vector. */
  wordSlot(hash: number, text: string, start: number, end: number): number {
    return this.slotOf(hash, text, start, end);
  }

  slotRank(at: number): number {
    return this.slots[at + 1]! - 1;
  }

  slotWeight(at: number): number {
    return this.slotWeights[at + 3]!;
  }

  /** The int8 components of the word ranked `rank` (a view of the kernel's memory: read, never keep). */
  wordRow(rank: number): Int8Array {
    return new Int8Array(this.kernel.memory.buffer, (this.slotOfRank[rank]! + HEADER_INTS) * 4, this.dimensions);
  }

  /**
   * The slot (its first int) of the word text[start, end) with this hash, or -1 when it has no
   * vector. Its checkHash is computed only if the first hash is found.
   */
  private slotOf(hash: number, text: string, start: number, end: number): number {
    const slots = this.slots;
    const slotInts = this.slotInts;
    let check: number | undefined;
    for (let slot = hash & this.slotMask; ; slot = (slot + 1) & this.slotMask) {
      const at = slot * slotInts;
      if (slots[at + 1] === 0) return -1;
      if (slots[at] !== hash) continue;
      check ??= checkHash(text, start, end);
      if (slots[at + 2] === check) return at;
    }
  }

  /** The unit SIF vector of a text, or undefined when none of its words is known. */
  embedText(text: string): Float32Array | undefined {
    const sum = new Float32Array(this.dimensions);
    return this.embedInto(text, sum) ? sum : undefined;
  }

  /**
   * Adds the unit SIF vector of a text to `total` (nothing when none of its words is known), made
   * in a buffer of the model's: a first start's 100,000 opted-in line items embed two texts each
   * (lineItemVector), whose vectors were 200,000 typed arrays of their own, garbage at once
   * (bench/README.md, "Ready after start: session 45").
   */
  addEmbedding(text: string, total: Float32Array): void {
    const part = this.part.fill(0);
    if (!this.embedInto(text, part)) return;
    for (let d = 0; d < total.length; d++) total[d]! += part[d]!;
  }

  /** Writes the unit SIF vector of a text into `sum` (zeros); false when none of its words is known. */
  private embedInto(text: string, sum: Float32Array): boolean {
    this.scratch.scan(text);
    this.known = 0;
    this.stage(this.scratch, Infinity, sum);
    this.addBatch(sum);
    return this.known > 0 && this.finish(sum) !== undefined;
  }

  /**
   * The unit SIF vector of a serve's conversation: the query's words and then the response's, up to
   * MAX_EMBEDDED_WORDS in all; undefined when none is known. The vector is a buffer of the model,
   * valid until the next call (requests are handled one at a time). Those words fit one batch, so the
   * kernel sums and finishes them in one call (finish below, the same steps in WebAssembly).
   */
  embedConversation(query: WordScan, response: WordScan): Float32Array | undefined {
    const sum = this.conversation;
    this.stage(query, MAX_EMBEDDED_WORDS, sum);
    this.stage(response, MAX_EMBEDDED_WORDS - Math.min(query.count, MAX_EMBEDDED_WORDS), sum);
    const { hashes, checks, out, common } = this.layout;
    const known = this.kernel.embed(hashes, checks, this.batched, out, common);
    this.batched = 0;
    if (known === 0 || !(this.staged.norm[0]! > 0)) return undefined;
    sum.set(this.staged.out);
    return sum;
  }

  /** Stages the first `maxWords` words of a scan for the kernel (adding full batches to `sum`). */
  private stage(scan: WordScan, maxWords: number, sum: Float32Array): void {
    const { hashes, checks } = this.staged;
    const limit = Math.min(scan.count, maxWords);
    const text = scan.text;
    for (let i = 0; i < limit; i++) {
      hashes[this.batched] = scan.hashes[i]!;
      checks[this.batched] = checkHash(text, scan.starts[i]!, scan.ends[i]!);
      if (++this.batched === BATCH_WORDS) this.addBatch(sum);
    }
  }

  /** Looks up the staged words and adds their weighted vectors to `sum` in one kernel call, and empties the batch. */
  private addBatch(sum: Float32Array): void {
    if (this.batched === 0) return;
    const { hashes, checks, out } = this.layout;
    this.known += this.kernel.embed(hashes, checks, this.batched, out, 0);
    this.batched = 0;
    const added = this.staged.out;
    for (let d = 0; d < this.dimensions; d++) sum[d]! += added[d]!;
  }

  /** Removes the common direction and scales to unit length, in place; undefined for a zero vector. */
  private finish(sum: Float32Array): Float32Array | undefined {
    const common = this.commonDirection;
    let projection = 0;
    for (let d = 0; d < this.dimensions; d++) projection += sum[d]! * common[d]!;
    let norm = 0;
    for (let d = 0; d < this.dimensions; d++) {
      sum[d]! -= projection * common[d]!;
      norm += sum[d]! * sum[d]!;
    }
    if (!(norm > 0)) return undefined;
    const inverse = 1 / Math.sqrt(norm);
    for (let d = 0; d < this.dimensions; d++) sum[d]! *= inverse;
    return sum;
  }
}

/**
 * Cosine of two unit vectors. Four running sums: one sum waits for each addition before the next
 * (about 4 cycles each), four let the additions overlap; brand safety's six topics took 1.9 us.
 */
export function similarity(a: Float32Array, b: Float32Array): number {
  const length = a.length;
  const whole = length & ~3;
  let dot0 = 0;
  let dot1 = 0;
  let dot2 = 0;
  let dot3 = 0;
  for (let d = 0; d < whole; d += 4) {
    dot0 += a[d]! * b[d]!;
    dot1 += a[d + 1]! * b[d + 1]!;
    dot2 += a[d + 2]! * b[d + 2]!;
    dot3 += a[d + 3]! * b[d + 3]!;
  }
  for (let d = whole; d < length; d++) dot0 += a[d]! * b[d]!;
  return dot0 + dot1 + (dot2 + dot3);
}

/**
 * A line item's vector: its keywords (what the advertiser says it is about) and its creatives'
 * titles and bodies, each embedded and weighted equally, so a long creative does not drown the keywords.
 * The catalog snapshot keeps the vectors keyed on the code that makes them and picks their texts
 * (semanticSnapshot.ts's semanticKey names the files).
 */
export function lineItemVector(model: SemanticModel, keywords: string[], creatives: ReadonlyArray<{ title: string; body: string }>): Float32Array | undefined {
  const creativeTexts = creatives.map((creative) => `${creative.title} ${creative.body}`);
  const sum = new Float32Array(model.dimensions);
  model.addEmbedding(keywords.join(', '), sum);
  model.addEmbedding(creativeTexts.join('. '), sum);
  let norm = 0;
  for (let d = 0; d < sum.length; d++) norm += sum[d]! * sum[d]!;
  if (!(norm > 0)) return undefined;
  const inverse = 1 / Math.sqrt(norm);
  for (let d = 0; d < sum.length; d++) sum[d]! *= inverse;
  return sum;
}

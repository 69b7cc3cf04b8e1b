import type { WordScan } from '../serving/contextWords.js';
import { MAX_EMBEDDED_WORDS, checkHash, type SemanticModel } from './semanticModel.js';
import { sifWeight } from './sifWeight.js';

/** Directions each word is projected onto: the topics' own, then the vocabulary's principal ones (clears below adds exactly 12). */
const DIRECTIONS = 12;
/** Ints per slot of the bound's word table: the model's four (hash, rank + 1, check hash, weight), then the word's DIRECTIONS coordinates. */
const SLOT_INTS = 16;
const COORDINATES = 4;
/** Words ranked below this have a slot of their own (4 MB in all): 97 % of the known words of the bench's conversations. */
const SLOTTED_WORDS = 32768;
/** Frequent words whose weighted vectors give the principal directions. */
const PRINCIPAL_WORDS = 1000;
const POWER_ITERATIONS = 60;
/** Covers the rounding of the similarity itself: its float32 vectors and sums (errors near 1e-6). */
const SIMILARITY_SLACK = 1e-4;

/**
 * An exact upper bound of a conversation's similarity to each sensitive topic, from 12 numbers per
 * word instead of its 100 components: brand safety clears most conversations with it and embeds
 * only the others, so every verdict is the one the full comparison gives.
 *
 * The conversation's vector is v = p / |p|, with p its SIF sum s = sum of w_i x row_i (the words'
 * int8 rows and weights) less its part along the common direction c. Its similarity to a topic t is
 * v.t = s.t' / |p|, t' = t - (t.c) c. With an orthonormal basis e_1..e_12, orthogonal to c, whose
 * first vectors span the topics' t': s.t' = sum_k (s.e_k)(t'.e_k) exactly, and |p| >= |(s.e_k)_k|,
 * the length of p's part in the basis. Each s.e_k = sum_i w_i (row_i.e_k), so a word's row.e_k are
 * computed once (on its first use) and a conversation costs 12 multiply-adds a word.
 *
 * Rounding: the service's float32 sum of s is within (n + 1) 2^-24 x 127 sqrt(D) x sum w_i of the
 * real one (n words, each row at most 127 sqrt(D) long); removing c from it, the stored float32
 * row.e_k (4 x 2^-24 in all, over 12 directions) and c's float32 length (the basis holds t' to
 * about 2^-23 |s|) add a few more 2^-24 of the same; `error` below is (n + 16) 2^-22 of it, several
 * times their total, taken off |p| and added to each s.t'. The float64 basis is orthonormal to about
 * 1e-15, and SIMILARITY_SLACK covers the rounding after the sum.
 */
export class TopicBound {
  /** The basis, DIRECTIONS x dimensions (fewer rows if the vocabulary spans fewer). */
  private readonly basis: Float64Array[];
  /** Per topic, its t' in basis coordinates. */
  private readonly topics: Float64Array[];
  /**
   * The frequent words (ranked below SLOTTED_WORDS) by hash, as the model finds them, each with its
   * row.e_k beside it (NaN until first seen): such a word costs one 64-byte slot, one cache miss. The
   * others are found in the model's table, their row.e_k in a rank-indexed array. With every word's
   * coordinates in that array the bound cost as much as the embedding it saves (a miss for the
   * coordinates instead of one for the row), and with every word in such slots (16 MB) more.
   */
  private readonly slots: Int32Array;
  private readonly slotFloats: Float32Array;
  private readonly slotMask: number;
  private readonly rareCoordinates: Float32Array;
  private readonly sum = new Float64Array(DIRECTIONS);
  private readonly maxRowLength: number;

  constructor(
    private readonly model: SemanticModel,
    topicVectors: Float32Array[],
  ) {
    const common = Float64Array.from(model.commonDirection);
    const basis: Float64Array[] = [];
    for (const topic of topicVectors) addOrthogonal(basis, Float64Array.from(topic), common);
    for (const direction of principalDirections(model, basis, common, DIRECTIONS - basis.length)) addOrthogonal(basis, direction, common);
    this.basis = basis.slice(0, DIRECTIONS);
    this.topics = topicVectors.map((vector) => {
      const topic = Float64Array.from(vector);
      const along = dot(topic, common);
      return Float64Array.from(this.basis, (direction) => dot(topic, direction) - along * dot(common, direction));
    });
    const slotted = Math.min(SLOTTED_WORDS, model.wordCount);
    const slots = 2 ** Math.ceil(Math.log2(Math.max(2, slotted * 2)));
    this.slots = new Int32Array(slots * SLOT_INTS);
    this.slotFloats = new Float32Array(this.slots.buffer);
    this.slotMask = slots - 1;
    model.forEachWord((hash, check, rank, weight) => {
      if (rank >= slotted) return;
      let slot = hash & this.slotMask;
      while (this.slots[slot * SLOT_INTS + 1] !== 0) slot = (slot + 1) & this.slotMask;
      const at = slot * SLOT_INTS;
      this.slots.set([hash, rank + 1, check], at);
      this.slotFloats[at + 3] = weight;
      this.slotFloats[at + COORDINATES] = NaN;
    });
    this.rareCoordinates = new Float32Array(Math.max(0, model.wordCount - slotted) * DIRECTIONS).fill(NaN);
    this.maxRowLength = 127 * Math.sqrt(model.dimensions);
  }

  /**
   * Whether no topic can reach `minSimilarity` for this query and response: then the conversation's
   * vector would be similar to none (or there is none). False means: compare the vector.
   */
  clears(query: WordScan, response: WordScan, minSimilarity: number): boolean {
    const floats = this.slotFloats;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0, s8 = 0, s9 = 0, s10 = 0, s11 = 0;
    const queryWords = Math.min(query.count, MAX_EMBEDDED_WORDS);
    const responseWords = Math.min(response.count, MAX_EMBEDDED_WORDS - queryWords);
    let count = 0;
    let totalWeight = 0;
    for (let i = 0; i < queryWords + responseWords; i++) {
      const scan = i < queryWords ? query : response;
      const word = i < queryWords ? i : i - queryWords;
      const hash = scan.hashes[word]!;
      const start = scan.starts[word]!;
      const end = scan.ends[word]!;
      const at = this.slotOf(hash, scan.text, start, end);
      let weight: number;
      let coordinates: Float32Array;
      let from: number;
      if (at >= 0) {
        if (Number.isNaN(floats[at + COORDINATES]!)) this.project(this.slots[at + 1]! - 1, floats, at + COORDINATES);
        weight = floats[at + 3]!;
        coordinates = floats;
        from = at + COORDINATES;
      } else {
        // Not a frequent word: a rarer one, or none the model knows.
        const slot = this.model.wordSlot(hash, scan.text, start, end);
        if (slot < 0) continue;
        const rank = this.model.slotRank(slot);
        weight = this.model.slotWeight(slot);
        coordinates = this.rareCoordinates;
        from = (rank - SLOTTED_WORDS) * DIRECTIONS;
        if (Number.isNaN(coordinates[from]!)) this.project(rank, coordinates, from);
      }
      // Written out into locals, which stay in registers: a loop over k took a third more of the
      // bound's time (1.6 against 2.2 us for 47 words), sums in the Float64Array a fifth more.
      s0 += weight * coordinates[from]!;
      s1 += weight * coordinates[from + 1]!;
      s2 += weight * coordinates[from + 2]!;
      s3 += weight * coordinates[from + 3]!;
      s4 += weight * coordinates[from + 4]!;
      s5 += weight * coordinates[from + 5]!;
      s6 += weight * coordinates[from + 6]!;
      s7 += weight * coordinates[from + 7]!;
      s8 += weight * coordinates[from + 8]!;
      s9 += weight * coordinates[from + 9]!;
      s10 += weight * coordinates[from + 10]!;
      s11 += weight * coordinates[from + 11]!;
      totalWeight += weight;
      count += 1;
    }
    const sum = this.sum;
    sum[0] = s0;
    sum[1] = s1;
    sum[2] = s2;
    sum[3] = s3;
    sum[4] = s4;
    sum[5] = s5;
    sum[6] = s6;
    sum[7] = s7;
    sum[8] = s8;
    sum[9] = s9;
    sum[10] = s10;
    sum[11] = s11;
    if (count === 0) return true;
    let squared = 0;
    for (let k = 0; k < DIRECTIONS; k++) squared += sum[k]! * sum[k]!;
    const error = (count + 16) * 2 ** -22 * this.maxRowLength * totalWeight;
    const shortest = Math.sqrt(squared) - error;
    if (!(shortest > 0)) return false;
    for (const topic of this.topics) {
      let along = 0;
      for (let k = 0; k < topic.length; k++) along += sum[k]! * topic[k]!;
      if ((along + error) / shortest >= minSimilarity - SIMILARITY_SLACK) return false;
    }
    return true;
  }

  /** The slot (its first int) of the word text[start, end) with this hash, or -1 (as the model's slotOf). */
  private slotOf(hash: number, text: string, start: number, end: number): number {
    const slots = this.slots;
    let check: number | undefined;
    for (let slot = hash & this.slotMask; ; slot = (slot + 1) & this.slotMask) {
      const at = slot * SLOT_INTS;
      if (slots[at + 1] === 0) return -1;
      if (slots[at] !== hash) continue;
      check ??= checkHash(text, start, end);
      if (slots[at + 2] === check) return at;
    }
  }

  /** Writes the word's row.e_k into `coordinates` from `from` on. */
  private project(rank: number, coordinates: Float32Array, from: number): void {
    const row = this.model.wordRow(rank);
    for (let k = 0; k < DIRECTIONS; k++) {
      const direction = this.basis[k];
      let along = 0;
      if (direction !== undefined) for (let d = 0; d < row.length; d++) along += row[d]! * direction[d]!;
      coordinates[from + k] = along;
    }
  }
}

/**
 * Up to `count` unit directions, orthogonal to c and to `basis`, along which the frequent words'
 * weighted vectors vary most (power iteration with deflation on their covariance): where a
 * conversation's vector has most of its length, so that the bound's |p| is close to the real one.
 */
function principalDirections(model: SemanticModel, basis: Float64Array[], common: Float64Array, count: number): Float64Array[] {
  const dimensions = model.dimensions;
  const covariance = new Float64Array(dimensions * dimensions);
  const row = new Float64Array(dimensions);
  const words = Math.min(PRINCIPAL_WORDS, model.wordCount);
  const removed = [common, ...basis];
  for (let rank = 0; rank < words; rank++) {
    residual(model.wordRow(rank), removed, row);
    addOuterProduct(covariance, row, sifWeight(rank) ** 2, 1);
  }
  const directions: Float64Array[] = [];
  for (let n = 0; n < count; n++) {
    let vector = Float64Array.from({ length: dimensions }, (_, d) => Math.sin(d + 1 + n));
    let value = 0;
    const next = new Float64Array(dimensions);
    for (let iteration = 0; iteration < POWER_ITERATIONS; iteration++) {
      multiply(covariance, vector, next);
      value = Math.sqrt(dot(next, next));
      if (!(value > 0)) return directions;
      for (let d = 0; d < dimensions; d++) vector[d] = next[d]! / value;
    }
    directions.push(vector);
    addOuterProduct(covariance, vector, value, -1);
  }
  return directions;
}

// The loops below are functions of their own, called many times, so that V8 optimizes them: run once
// inline, the covariance loop allocated a number per step (about 120 ms instead of 10).

/** matrix += sign x weight x vector vector^T (a square matrix, row by row). */
function addOuterProduct(matrix: Float64Array, vector: Float64Array, weight: number, sign: 1 | -1): void {
  const size = vector.length;
  for (let i = 0; i < size; i++) {
    const scaled = sign * weight * vector[i]!;
    for (let j = 0; j < size; j++) matrix[i * size + j]! += scaled * vector[j]!;
  }
}

/** out = the part of `row` orthogonal to each of the unit vectors `removed` (themselves orthogonal). */
function residual(row: Int8Array, removed: Float64Array[], out: Float64Array): void {
  for (let d = 0; d < out.length; d++) out[d] = row[d]!;
  for (const unit of removed) removeAlong(out, unit);
}

/** out = matrix x vector (a square matrix, row by row). */
function multiply(matrix: Float64Array, vector: Float64Array, out: Float64Array): void {
  const size = vector.length;
  for (let i = 0; i < size; i++) {
    let total = 0;
    for (let j = 0; j < size; j++) total += matrix[i * size + j]! * vector[j]!;
    out[i] = total;
  }
}

/** Adds `vector`'s part orthogonal to c and to the basis, at unit length, unless it has (nearly) none. */
function addOrthogonal(basis: Float64Array[], vector: Float64Array, common: Float64Array): void {
  const length = Math.sqrt(dot(vector, vector));
  // Twice: the second pass removes what rounding left of the first.
  for (let pass = 0; pass < 2; pass++) {
    removeAlong(vector, common);
    for (const direction of basis) removeAlong(vector, direction);
  }
  const left = Math.sqrt(dot(vector, vector));
  if (!(left > length * 1e-6)) return;
  basis.push(vector.map((component) => component / left));
}

function removeAlong(vector: Float64Array, unit: Float64Array): void {
  const along = dot(vector, unit);
  for (let d = 0; d < vector.length; d++) vector[d]! -= along * unit[d]!;
}

function dot(a: Float64Array, b: Float64Array): number {
  let total = 0;
  for (let d = 0; d < a.length; d++) total += a[d]! * b[d]!;
  return total;
}

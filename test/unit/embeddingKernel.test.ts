import { describe, expect, it } from 'vitest';
import { WordScan } from '../../src/serving/contextWords.js';
import { SemanticModel } from '../../src/semantic/semanticModel.js';
import { sifWeight } from '../../src/semantic/sifWeight.js';
import type { WordVectors } from '../../src/semantic/wordVectorsFile.js';

/** Reproducible vectors: `count` words w0, w1... with int8 components over the whole range. */
function syntheticVectors(count: number, dimensions: number): WordVectors {
  let state = 7;
  const next = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0);
  const components = new Int8Array(count * dimensions).map(() => (next() % 255) - 127);
  const scales = new Float32Array(count).map(() => 0.001 + (next() % 1000) / 50_000);
  const commonDirection = new Float32Array(dimensions);
  commonDirection[0] = 1;
  return { dimensions, words: Array.from({ length: count }, (_, rank) => `w${rank}`), components, scales, commonDirection };
}

/** What addScan adds, one component at a time in float64 (the kernel rounds to float32 as it goes). */
function expectedSum(vectors: WordVectors, ranks: number[]): Float64Array {
  const sum = new Float64Array(vectors.dimensions);
  for (const rank of ranks) {
    const factor = Math.fround(sifWeight(rank) * vectors.scales[rank]!);
    for (let d = 0; d < vectors.dimensions; d++) sum[d]! += vectors.components[rank * vectors.dimensions + d]! * factor;
  }
  return sum;
}

describe('the embedding kernel (SemanticModel.addScan)', () => {
  for (const dimensions of [100, 12, 8]) {
    it(`adds every known word's weighted vector, ${dimensions} dimensions, across chunks of words`, () => {
      const vectors = syntheticVectors(2_000, dimensions);
      const model = new SemanticModel(vectors);
      // 1,300 words (more than one chunk of 512), unknown words in between, the first one repeated.
      const ranks = Array.from({ length: 1_300 }, (_, i) => (i * 37) % 2_000);
      const scan = new WordScan();
      scan.scan(ranks.map((rank, i) => (i % 5 === 0 ? `w${rank} unknownword` : `w${rank}`)).join(' '));
      const sum = new Float32Array(dimensions).fill(0.5);
      expect(model.addScan(scan, sum, Infinity)).toBe(ranks.length);
      const expected = expectedSum(vectors, ranks);
      for (let d = 0; d < dimensions; d++) expect(sum[d]).toBeCloseTo(0.5 + expected[d]!, 3);

      const limited = new Float32Array(dimensions);
      expect(model.addScan(scan, limited, 10)).toBe(8);
      const first = expectedSum(vectors, ranks.slice(0, 8));
      for (let d = 0; d < dimensions; d++) expect(limited[d]).toBeCloseTo(first[d]!, 5);
    });
  }

  it('leaves the sum as it was when no word is known', () => {
    const model = new SemanticModel(syntheticVectors(10, 12));
    const scan = new WordScan();
    scan.scan('nothing here is known');
    const sum = new Float32Array(12).fill(0.25);
    expect(model.addScan(scan, sum, Infinity)).toBe(0);
    expect([...sum]).toEqual(new Array(12).fill(0.25));
  });

  it('refuses vectors whose width is not a multiple of four', () => {
    expect(() => new SemanticModel(syntheticVectors(10, 10))).toThrow(/four components/);
  });
});

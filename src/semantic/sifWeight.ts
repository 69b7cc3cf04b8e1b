/**
 * SIF's weight a / (a + p(w)) for a word by its frequency rank (0 = most frequent). The word's
 * probability p(w) is estimated from its rank by Zipf's law, p = 1 / ((rank + 1) x H), with H the
 * harmonic number of a 400,000-word vocabulary: "the" weighs about 0.01, a word ranked 1,000th
 * about 0.93, rare words nearly 1.
 */
const SIF_A = 1e-3;
const HARMONIC = Math.log(400_000) + 0.5772;

export function sifWeight(rank: number): number {
  const probability = 1 / ((rank + 1) * HARMONIC);
  return SIF_A / (SIF_A + probability);
}

import { describe, expect, it } from 'vitest';
import { FirstWordMap } from '../../src/serving/firstWordMap.js';
import { wordHash } from '../../src/serving/contextWords.js';

/** Distinct int32 hashes, as wordHash makes them (negative ones included). */
const hashes = (count: number, from = 0) => Array.from({ length: count }, (_, i) => wordHash(`word${from + i}`));

describe('FirstWordMap', () => {
  it('finds every phrase under its first word while its filter grows', () => {
    const map = new FirstWordMap<string>();
    // Past the smallest filter's 1,024 words (16 bits each), so it is remade at several sizes.
    const words = hashes(20_000);
    words.forEach((hash, i) => map.add(hash, `phrase ${i}`));
    words.forEach((hash, i) => expect(map.get(hash)).toEqual([`phrase ${i}`]));
    map.add(words[7]!, 'second phrase');
    expect(map.get(words[7]!)).toEqual(['phrase 7', 'second phrase']);
  });

  it('answers nothing for a word that starts no phrase', () => {
    const map = new FirstWordMap<string>();
    hashes(100).forEach((hash) => map.add(hash, 'phrase'));
    for (const hash of hashes(1000, 100)) expect(map.get(hash)).toBeUndefined();
  });

  it('forgets removed phrases and still finds the rest after the filter is remade', () => {
    const map = new FirstWordMap<string>();
    const words = hashes(3000);
    words.forEach((hash, i) => map.add(hash, `phrase ${i}`));
    map.add(words[0]!, 'other');
    map.remove(words[0]!, 'phrase 0');
    expect(map.get(words[0]!)).toEqual(['other']);
    // More removals than hashes left: the filter is remade from what is left, more than once.
    for (let i = 1; i < 2900; i++) map.remove(words[i]!, `phrase ${i}`);
    for (let i = 1; i < 2900; i++) expect(map.get(words[i]!)).toBeUndefined();
    for (let i = 2900; i < 3000; i++) expect(map.get(words[i]!)).toEqual([`phrase ${i}`]);
    expect(map.get(words[0]!)).toEqual(['other']);
    map.add(words[5]!, 'back');
    expect(map.get(words[5]!)).toEqual(['back']);
  });
});

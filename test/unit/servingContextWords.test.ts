import { describe, expect, it } from 'vitest';
import { WordScan, wordHash, wordsOf } from '../../src/serving/contextWords.js';

describe('context words', () => {
  it('splits on anything but letters and digits, lowercased', () => {
    expect(wordsOf('Best E-Bike, 2025 edition!')).toEqual(['best', 'e', 'bike', '2025', 'edition']);
    expect(wordsOf("don't")).toEqual(['don', 't']);
    expect(wordsOf('  ')).toEqual([]);
  });

  it('keeps letters of every script, with their combining marks, and drops emoji', () => {
    expect(wordsOf('Günstige Fahrräder')).toEqual(['günstige', 'fahrräder']);
    expect(wordsOf('Cafe\u0301 ok')).toEqual(['cafe\u0301', 'ok']);
    expect(wordsOf('купить велосипед')).toEqual(['купить', 'велосипед']);
    expect(wordsOf('自転車を買う')).toEqual(['自転車を買う']);
    expect(wordsOf('bike🙂ride')).toEqual(['bike', 'ride']);
    expect(wordsOf('𐌰𐌱 gothic')).toEqual(['𐌰𐌱', 'gothic']);
  });

  it('hashes each scanned word exactly as wordHash hashes the keyword', () => {
    const scan = new WordScan();
    const text = Array.from({ length: 600 }, (_, i) => `Word${i}`).join(' — ');
    scan.scan(text);
    expect(scan.count).toBe(600);
    expect(scan.hashes[599]).toBe(wordHash('word599'));
    expect(scan.wordIs(599, 'word599')).toBe(true);
    expect(scan.wordIs(599, 'word59')).toBe(false);
  });
});

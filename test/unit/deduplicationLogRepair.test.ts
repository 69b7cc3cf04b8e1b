import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgetBlocksWithoutParts } from '../../src/store/deduplicationLogRepair.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

/** A table directory as the engine leaves it: its parts' directories and its deduplication logs. */
function table(parts: string[], logs: Record<number, string>) {
  const clickhouse = tempDirectory('dedup-repair-');
  const directory = path.join(clickhouse, 'store', 'abc', 'abc12345-0000-0000-0000-000000000000');
  mkdirSync(path.join(directory, 'deduplication_logs'), { recursive: true });
  for (const part of parts) mkdirSync(path.join(directory, part));
  for (const [number, text] of Object.entries(logs)) writeFileSync(path.join(directory, 'deduplication_logs', `deduplication_log_${number}.txt`), text);
  const log = (number: number) => readFileSync(path.join(directory, 'deduplication_logs', `deduplication_log_${number}.txt`), 'utf8');
  return { clickhouse, log, logs: () => readdirSync(path.join(directory, 'deduplication_logs')).sort() };
}

const add = (part: string, block: string) => `1\t${part}\t${block}\n`;

describe('forgetBlocksWithoutParts (the ids a kill -9 left between the deduplication log and the part rename)', () => {
  it('writes a DROP record, in a log of its own after the others, for the trailing ids of a part that is not there', () => {
    const t = table(['202611_1_1_0', 'tmp_insert_202611_2_2_0'], { 1: add('202611_1_1_0', '202611_a') + add('202611_2_2_0', '202611_b') + add('202611_2_2_0', '202611_c') });
    const forgotten = forgetBlocksWithoutParts(t.clickhouse);
    expect(forgotten.map(({ part, blockIds }) => ({ part, blockIds }))).toEqual([{ part: '202611_2_2_0', blockIds: ['202611_c', '202611_b'] }]);
    expect(t.log(2)).toBe('2\t202611_2_2_0\t202611_c\n2\t202611_2_2_0\t202611_b\n');
    // Once written, the next start finds the DROP last and leaves the logs alone.
    expect(forgetBlocksWithoutParts(t.clickhouse)).toEqual([]);
    expect(t.logs()).toEqual(['deduplication_log_1.txt', 'deduplication_log_2.txt']);
  });

  it('leaves a log alone whose last block is in its part, or in a part merged from it', () => {
    expect(forgetBlocksWithoutParts(table(['202611_1_1_0'], { 1: add('202611_1_1_0', '202611_a') }).clickhouse)).toEqual([]);
    const merged = table(['202611_1_7_2_9'], { 1: add('202611_7_7_0', '202611_a') });
    expect(forgetBlocksWithoutParts(merged.clickhouse)).toEqual([]);
    expect(merged.logs()).toEqual(['deduplication_log_1.txt']);
  });

  it('reads the newest log that has records, and touches nothing when a log does not end in whole records', () => {
    const rotated = table([], { 1: add('all_3_3_0', 'all_a'), 2: '' });
    expect(forgetBlocksWithoutParts(rotated.clickhouse).map(({ part }) => part)).toEqual(['all_3_3_0']);
    expect(rotated.log(3)).toBe('2\tall_3_3_0\tall_a\n');
    const torn = table([], { 1: add('all_3_3_0', 'all_a') + '1\tall_4_4_0' });
    expect(forgetBlocksWithoutParts(torn.clickhouse)).toEqual([]);
    expect(torn.logs()).toEqual(['deduplication_log_1.txt']);
  });
});

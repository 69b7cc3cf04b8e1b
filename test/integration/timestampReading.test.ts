import { beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../src/runtime.js';
import { testStores } from '../helpers/testApp.js';

/** Runs on the suite's Postgres: embedded PGlite, or the server in the CI's server pass. Both must read alike. */
let stores: Stores;
beforeAll(async () => {
  stores = (await testStores()).stores;
});

async function readBack(text: string): Promise<unknown> {
  const { rows } = await stores.db.query<{ instant: unknown }>('SELECT $1::timestamptz AS instant', [text]);
  return rows[0]!.instant;
}

describe('timestamptz reads back as the instant written, on either backend', () => {
  it('years 0001-0099 (PGlite read 0001-06-15 as 2015-01-06)', async () => {
    for (const written of ['0001-06-15T00:00:00.000Z', '0001-01-01T00:00:00.000Z', '0099-06-15T00:00:00.000Z', '0100-03-01T12:30:00.000Z']) {
      expect(await readBack(written), written).toEqual(new Date(written));
    }
  });

  it('offsets, fractions of a second (to the millisecond), years before 1 and infinity', async () => {
    expect(await readBack('2026-01-02T03:04:05.123456+05:30')).toEqual(new Date('2026-01-01T21:34:05.123Z'));
    expect(await readBack('2026-07-01T00:00:00.5Z')).toEqual(new Date('2026-07-01T00:00:00.500Z'));
    // 1 BC is the astronomical year 0.
    expect(await readBack('0001-01-01 00:00:00+00 BC')).toEqual(new Date('0000-01-01T00:00:00.000Z'));
    expect(await readBack('9999-12-31T23:59:59.999Z')).toEqual(new Date('9999-12-31T23:59:59.999Z'));
    expect(await readBack('infinity')).toBe(Infinity);
    expect(await readBack('-infinity')).toBe(-Infinity);
  });
});

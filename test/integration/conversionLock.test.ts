import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Postgres } from '../../src/store/postgres.js';
import { openPostgres } from '../../src/store/postgres.js';
import { CONVERSION_LOCK_HOLDERS, conversionLock } from '../../src/tracking/conversionLock.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { testDatabaseUrl } from '../helpers/testApp.js';

/**
 * The per-conversion_id lock on a Postgres server holds a pooled connection while its step writes
 * to ClickHouse. Slow steps must leave the pool to everyone else: beyond a few at once, and when
 * waiting too long for the same id, a step is refused (503 unavailable, retried by the sender).
 */
describe.skipIf(testDatabaseUrl === undefined)('the conversion lock on a Postgres server', () => {
  let db: Postgres;
  beforeAll(async () => {
    db = await openPostgres({ databaseUrl: testDatabaseUrl, dataDir: tempDirectory('adsvc-conversion-lock-') });
  });
  afterAll(async () => {
    await db?.close();
  });

  /** A step that runs until `finish` is called, and says when it has the lock. */
  function heldStep() {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const step = async () => {
      started();
      await finished;
      return 'stored';
    };
    return { step, running, finish };
  }

  it('refuses a step beyond the cap at once, and the pool still answers everyone else', async () => {
    const lock = conversionLock(db);
    const held = Array.from({ length: CONVERSION_LOCK_HOLDERS }, heldStep);
    const results = held.map(({ step }) => lock(randomUUID(), step));
    await Promise.all(held.map(({ running }) => running));

    await expect(lock(randomUUID(), async () => 'stored')).rejects.toMatchObject({ code: 'unavailable' });
    const { rows } = await db.query<{ one: number }>('SELECT 1 AS one');
    expect(rows[0]!.one).toBe(1);

    for (const { finish } of held) finish();
    expect(await Promise.all(results)).toEqual(held.map(() => 'stored'));
    expect(await lock(randomUUID(), async () => 'stored')).toBe('stored');
  });

  it('refuses a step that waits too long for another step of the same id, and keeps that one', async () => {
    const lock = conversionLock(db);
    const eventId = randomUUID();
    const first = heldStep();
    const firstResult = lock(eventId, first.step);
    await first.running;
    let secondRan = false;
    await expect(
      lock(eventId, async () => {
        secondRan = true;
      }),
    ).rejects.toMatchObject({ code: 'unavailable' });
    expect(secondRan).toBe(false);
    first.finish();
    expect(await firstResult).toBe('stored');
  });
});

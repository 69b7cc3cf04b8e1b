import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestAppOn, testStores } from '../helpers/testApp.js';
import { createPlacement, createPublisher } from '../helpers/factories.js';
import { serve, uniqueWord } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { canMount, fillDisk, mountTmpfs, notRootMessage } from '../helpers/tmpfs.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { ServeCounts } from '../../src/serving/serveCounts.js';
import type { ClickHouse } from '../../src/store/clickhouse.js';

let ch: ClickHouse;

beforeAll(async () => {
  ch = (await testStores()).stores.ch;
});

async function countsOf(placementId: string) {
  const result = await ch.client.query({
    query: `SELECT toString(day) AS row_day, sum(requests) AS total_requests, sum(filled) AS total_filled
              FROM placement_serve_counts_v1 WHERE placement_id = {placement_id:String} GROUP BY row_day ORDER BY row_day`,
    query_params: { placement_id: placementId },
    format: 'JSONEachRow',
  });
  return (await result.json<{ row_day: string; total_requests: string | number; total_filled: string | number }>()).map((row) => ({
    day: row.row_day,
    requests: Number(row.total_requests),
    filled: Number(row.total_filled),
  }));
}

async function withCountsTableGone<T>(run: () => Promise<T>): Promise<T> {
  await ch.client.command({ query: 'RENAME TABLE placement_serve_counts_v1 TO placement_serve_counts_v1_gone' });
  try {
    return await run();
  } finally {
    await ch.client.command({ query: 'RENAME TABLE placement_serve_counts_v1_gone TO placement_serve_counts_v1' });
  }
}

const newDirectory = () => tempDirectory('serve-counts-');
const monday = Date.parse('2026-03-02T23:59:59.999Z');
const tuesday = Date.parse('2026-03-03T00:00:00.000Z');

describe('serve counts', () => {
  it('writes one row per placement and UTC day, summing requests and fills', async () => {
    const placement = `p-${randomUUID()}`;
    const counts = new ServeCounts(ch, newDirectory(), false);
    counts.count(placement, true, monday);
    counts.count(placement, false, monday);
    counts.count(placement, true, tuesday);
    await counts.flush();
    counts.count(placement, false, tuesday);
    await counts.flush();
    expect(await countsOf(placement)).toEqual([
      { day: '2026-03-02', requests: 2, filled: 1 },
      { day: '2026-03-03', requests: 2, filled: 1 },
    ]);
  });

  it('counts nothing when disabled (SERVE_COUNTS=false)', async () => {
    const placement = `p-${randomUUID()}`;
    const counts = new ServeCounts(ch, newDirectory(), false, false);
    counts.count(placement, true, monday);
    await counts.flush();
    expect(await countsOf(placement)).toEqual([]);
  });

  it('keeps counts on disk while ClickHouse fails, and a restarted instance sends them', async () => {
    const placement = `p-${randomUUID()}`;
    const directory = newDirectory();
    const counts = new ServeCounts(ch, directory, true);
    counts.count(placement, true, monday);
    await withCountsTableGone(() => expect(counts.flush()).rejects.toThrow());
    expect(readdirSync(directory)).toHaveLength(1);
    expect(await countsOf(placement)).toEqual([]);

    await new ServeCounts(ch, directory, true).flush();
    expect(await countsOf(placement)).toEqual([{ day: '2026-03-02', requests: 1, filled: 1 }]);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('counts two flushes with the same counts twice: files are told apart by name, not content', async () => {
    const placement = `p-${randomUUID()}`;
    const counts = new ServeCounts(ch, newDirectory(), false);
    counts.count(placement, true, monday);
    await counts.flush();
    counts.count(placement, true, monday);
    await counts.flush();
    expect(await countsOf(placement)).toEqual([{ day: '2026-03-02', requests: 2, filled: 2 }]);
  });

  it('counts a file once when it is sent again after a crash between the insert and its removal', async () => {
    const placement = `p-${randomUUID()}`;
    const directory = newDirectory();
    const counts = new ServeCounts(ch, directory, false);
    counts.count(placement, false, monday);
    await withCountsTableGone(() => expect(counts.flush()).rejects.toThrow());
    const [name] = readdirSync(directory);
    const body = readFileSync(path.join(directory, name!), 'utf8');
    await counts.flush();
    writeFileSync(path.join(directory, name!), body);
    await new ServeCounts(ch, directory, false).flush();
    expect(await countsOf(placement)).toEqual([{ day: '2026-03-02', requests: 1, filled: 0 }]);
  });
});

describe.skipIf(!canMount)('serve counts on a full disk (real tmpfs)', () => {
  it('keeps the counts a full disk could not write and reports them once space is back', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'serve-counts-full-'));
    const directory = path.join(dataDir, 'serve-counts');
    const release = mountTmpfs(directory, 64 * 1024);
    // Flushed every 100 ms: several flushes fail while the disk is full.
    const app = await startTestAppOn(stores, dataDir, { EVENT_FLUSH_INTERVAL_MS: '100' });
    try {
      const publisher = await createPublisher(app);
      const placement = (await createPlacement(app, publisher.id)).id;
      const serveOnce = () => serve(app, publisher.token, { placement_id: placement, context: { query: uniqueWord(), response: '' } });
      const today = new Date().toISOString().slice(0, 10);
      const reportedRequests = (atLeast: number) =>
        eventually(async () => {
          const report = await app.app.inject({
            method: 'GET',
            url: '/v1/publisher/reporting',
            query: { date_from: today, date_to: today },
            headers: { authorization: `Bearer ${publisher.token}` },
          });
          const [first] = report.json().data as Array<{ requests: number; filled: number }>;
          return first !== undefined && first.requests >= atLeast ? first : undefined;
        }, 'the serve counts in the publisher report');
      // On a Postgres server the new token reaches serving through a notification: one counted serve
      // once it does, reported, before the disk fills.
      await eventually(async () => ((await serveOnce()).statusCode === 200 ? true : undefined), 'the token in the serving index');
      await reportedRequests(1);
      const freeSpace = fillDisk(directory);
      for (let n = 0; n < 5; n++) expect((await serveOnce()).statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(readdirSync(directory).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
      freeSpace();
      const row = await reportedRequests(6);
      expect([row.requests, row.filled]).toEqual([6, 0]);
    } finally {
      await app.close();
      release();
    }
  });
});

if (!canMount) console.warn(notRootMessage);

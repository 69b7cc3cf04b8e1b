import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { openClickHouse } from '../../src/store/clickhouse.js';
import { migrateClickHouse, splitStatements } from '../../src/store/migrate.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

// Its own file: chdb opens one data directory per process, and this one starts from migrations before 0016.
const d = (offset: number) => new Date(Date.now() - (30 - offset) * 86_400_000).toISOString().slice(0, 10);
const noon = (day: string) => Date.parse(`${day}T12:00:00Z`);

describe('forged impressions of the days before clickhouse/0016', () => {
  it('are counted from events_v1 by the migration, once even when it runs again, and new ones by its view', async () => {
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'forged-'));
    const ch = await openClickHouse({ database: 'adsvc', dataDir });
    try {
      const migrations = path.join(packageRoot, 'clickhouse');
      const before = path.join(dataDir, 'migrations');
      const files = readdirSync(migrations).filter((name) => name.endsWith('.sql') && name < '0016');
      mkdirSync(before);
      for (const name of files) copyFileSync(path.join(migrations, name), path.join(before, name));
      await migrateClickHouse(ch, before);

      const owner = randomUUID();
      const insert = (events: TrackedEvent[]) =>
        ch.client.insert({
          table: 'events_v1',
          values: events.map((event) => ({ ...event, event_time: new Date(event.event_time).toISOString().replace('T', ' ').replace('Z', '') })),
          format: 'JSONEachRow',
        });
      const forged = (placement: string, day: string) => sampleEvent({ placement_id: placement, publisher_id: owner, cost_nanos: 0, ivt: 'bad_token', event_time: noon(day) });
      await insert([
        forged('p1', d(0)),
        forged('p1', d(0)),
        forged('p1', d(1)),
        forged('p2', d(1)),
        sampleEvent({ placement_id: 'p1', publisher_id: owner, ivt: 'datacenter', event_time: noon(d(0)) }),
        sampleEvent({ placement_id: 'p1', publisher_id: owner, type: 'click', ivt: 'bad_token', event_time: noon(d(0)) }),
      ]);
      const counts = async () => {
        const result = await ch.client.query({
          query: `SELECT placement_id, toString(day) AS day, sum(invalid_impressions) AS invalid, sum(forged_impressions) AS forged
                  FROM placement_daily_stats_v1 GROUP BY placement_id, day ORDER BY placement_id, day`,
          format: 'JSONEachRow',
        });
        return result.json();
      };
      const expected = [
        { placement_id: 'p1', day: d(0), invalid: 3, forged: 2 },
        { placement_id: 'p1', day: d(1), invalid: 1, forged: 1 },
        { placement_id: 'p2', day: d(1), invalid: 1, forged: 1 },
      ];

      // 0016 and every later migration; this test's is 0016.
      expect(await migrateClickHouse(ch, migrations)).toContain('0016_placement_forged_impressions.sql');
      expect(await counts()).toEqual(expected);
      // An interrupted migration is run again whole: its backfill must not count the days twice.
      const sql = readFileSync(path.join(migrations, '0016_placement_forged_impressions.sql'), 'utf8');
      for (const statement of splitStatements(sql)) await ch.client.command({ query: statement });
      expect(await counts()).toEqual(expected);

      await insert([forged('p2', d(1))]);
      expect((await counts())[2]).toEqual({ placement_id: 'p2', day: d(1), invalid: 2, forged: 2 });
    } finally {
      await ch.close();
    }
  });
});

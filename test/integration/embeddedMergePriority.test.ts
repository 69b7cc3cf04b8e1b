import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openClickHouse } from '../../src/store/clickhouse.js';

/**
 * Embedded ClickHouse merges at a lower CPU priority than the process's own thread (clickhouse.ts):
 * the engine is started with its merge threads' nice value, and the store opens, answers and closes
 * as before (a second open of the same directory in this process after the close too).
 */
it('embedded ClickHouse runs its merges at nice 10 and reopens after a close', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-merge-nice-'));
  try {
    for (let open = 0; open < 2; open++) {
      const ch = await openClickHouse({ database: 'adsvc', dataDir });
      try {
        const result = await ch.client.query({
          query: "SELECT value FROM system.server_settings WHERE name = 'os_threads_nice_value_merge_mutate'",
          format: 'JSONEachRow',
        });
        expect(await result.json()).toEqual([{ value: '10' }]);
      } finally {
        await ch.close();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

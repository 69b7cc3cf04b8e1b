import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

/**
 * A power loss or a disk fault soon after a start leaves embedded PGlite's postmaster.pid empty (ext4
 * wrote the file's name, never its data): PGlite then refused to open ("PGlite failed to initialize
 * properly") at every start, until someone deleted the file (try40 F9).
 */
describe('embedded Postgres after a power loss', () => {
  it('opens a data directory whose postmaster.pid was left empty, with its data', async () => {
    const dataDir = tempDirectory('postmaster-pid-');
    const first = await openPostgres({ dataDir });
    await first.query('CREATE TABLE kept (id int)');
    await first.query('INSERT INTO kept VALUES (42)');
    await first.close();
    writeFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), '');

    const again = await openPostgres({ dataDir });
    try {
      expect((await again.query<{ id: number }>('SELECT id FROM kept')).rows).toEqual([{ id: 42 }]);
    } finally {
      await again.close();
    }
  });
});

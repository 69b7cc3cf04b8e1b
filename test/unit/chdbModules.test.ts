import { describe, expect, it } from 'vitest';
import type { ChdbModules } from '../../src/store/clickhouse.js';

describe('the optional chdb package', () => {
  // Typed by the package (installed here): a change of chdb's API that the embedded store's own
  // declaration of it no longer fits fails `npm run typecheck` on this assignment.
  it('has what the embedded store uses of it', async () => {
    const modules: ChdbModules = { engine: await import('chdb'), connection: await import('chdb/connection') };
    expect(typeof modules.engine.Session).toBe('function');
    expect(typeof modules.connection.createChdbConnection).toBe('function');
  });
});

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

function finished(child: ChildProcessByStdio<null, Readable, Readable>): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/**
 * try39 F9: chdb's engine closed under a running query, and the process's exit after, ended the
 * process in a segfault (exit 139). The embedded store's close waits for the queries running in it,
 * so no caller has to. In a child process: a segfault there is the finding, not the end of the suite.
 */
describe('closing embedded ClickHouse', () => {
  it('waits for the query running in it, answers a query asked after the close began as unavailable, and the process exits cleanly', async () => {
    // On a DATA_DIR holding parts, as the service's: on an empty one the exit under the query did not always crash.
    const dataDir = tempDirectory('close-under-query-');
    const seeded = await finished(spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/eventPartsChild.ts'), dataDir, '40'], { cwd: packageRoot, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(seeded.code, seeded.stderr).toBe(0);
    const closed = await finished(spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/closeUnderQueryChild.ts'), dataDir], { cwd: packageRoot, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect({ code: closed.code, signal: closed.signal }, closed.stderr).toEqual({ code: 0, signal: null });
    expect(JSON.parse(closed.stdout)).toEqual({ running: 'answered', afterClose: 'ClickHouse is unavailable: the embedded ClickHouse is closed' });
  }, 60_000);
});

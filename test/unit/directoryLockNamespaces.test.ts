import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDirectory } from '../../src/store/directoryLock.js';

/**
 * A holder in another pid namespace (a container sharing DATA_DIR's volume: a rolling update's new
 * pod, a second replica) names a pid and start time of its own namespace, and boot_id is the host's
 * in every container. Read here, pid 1 is this namespace's init with another start time, so the lock
 * looked copied or reused and was taken over while its holder ran (rev39 F1). Needs unprivileged
 * user and pid namespaces (`unshare -rpf`); skipped where there are none.
 */
const canUnshare = (() => {
  try {
    execFileSync('unshare', ['-rpf', '--mount-proc', '--kill-child', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let holder: ChildProcess | undefined;
afterEach(() => {
  holder?.kill('SIGKILL');
  holder = undefined;
});

describe.skipIf(!canUnshare)('directory lock across pid namespaces', () => {
  it('refuses a lock held by a live process of another pid namespace', async () => {
    const directory = path.join(mkdtempSync(path.join(os.tmpdir(), 'lock-ns-')), 'spool');
    const lockModule = path.resolve('src/store/directoryLock.ts');
    const script = `import(${JSON.stringify(lockModule)}).then((m) => { m.lockDirectory(${JSON.stringify(directory)}, { name: 'x', harm: 'x' }); console.log('locked'); setInterval(() => {}, 60_000); });`;
    holder = spawn('unshare', ['-rpf', '--mount-proc', '--kill-child', process.execPath, '--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.once('data', () => resolve());
      holder!.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
    });
    // Its pid in its own namespace: 1, as a container's main process has.
    expect(readFileSync(`${directory}.lock`, 'utf8').split('\n')[0]).toBe('1');
    expect(() => lockDirectory(directory, { name: 'the test directory', harm: 'a test' })).toThrow(/in use/);
  });
});

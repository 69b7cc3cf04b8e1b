import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDirectory } from '../../src/store/directoryLock.js';
import { eventually } from '../helpers/eventually.js';

/**
 * A directory lock names its holder's pid; a lock whose holder is gone is taken over. A holder that
 * has exited but is not yet collected by its parent (a zombie) is gone too: real processes, Linux /proc.
 */
const use = { name: 'the test directory', harm: 'a test' };

function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return undefined;
  }
}

describe.runIf(existsSync('/proc/self/stat'))('lockDirectory', () => {
  let root: string;
  let parent: ChildProcess;
  let zombiePid: number;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'directory-lock-'));
    // A shell starts a child that exits a second later, then becomes `sleep`, which never collects it:
    // a zombie until sleep ends. (A child that exited at once could be collected by the shell before
    // its exec, and never be a zombie: it failed that way once on a loaded CI machine.)
    parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    zombiePid = await new Promise<number>((resolve) => parent.stdout!.once('data', (data: Buffer) => resolve(Number.parseInt(data.toString(), 10))));
    await eventually(async () => (processState(zombiePid) === 'Z' ? true : undefined), 'the child to become a zombie');
  });

  afterAll(() => {
    parent?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses a directory whose lock names a running process', () => {
    const directory = path.join(root, 'held');
    writeFileSync(`${directory}.lock`, `${parent.pid}\n`);
    expect(() => lockDirectory(directory, use)).toThrow(`is in use by process ${parent.pid}`);
  });

  it('takes over a lock whose holder is a zombie (exited, not yet collected by its parent)', () => {
    const directory = path.join(root, 'zombie');
    writeFileSync(`${directory}.lock`, `${zombiePid}\n`);
    const release = lockDirectory(directory, use);
    expect(readFileSync(`${directory}.lock`, 'utf8')).toBe(`${process.pid}\n`);
    release();
    expect(existsSync(`${directory}.lock`)).toBe(false);
  });
});

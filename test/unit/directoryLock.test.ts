import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDirectory } from '../../src/store/directoryLock.js';
import { eventually } from '../helpers/eventually.js';

/**
 * A directory lock names its holder's pid; a lock whose holder is gone is taken over. A holder that
 * has exited but is not yet collected by its parent (a zombie) is gone too, and so is one whose pid
 * now belongs to another process (another boot, another start time) or whose lock was copied with
 * its DATA_DIR: real processes, Linux /proc.
 */
const use = { name: 'the test directory', harm: 'a test' };
/** This process's pid namespace: the lock's other stamps are judged only for a holder in it. */
const pidNamespace = readlinkSync('/proc/self/ns/pid');

function bootId(): string {
  return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
}

function startTime(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3]!;
}

/** Another process that takes the lock with this code, as a running adsvc does, and keeps it until killed. */
async function holderProcess(directory: string): Promise<ChildProcess> {
  const lockModule = path.resolve('src/store/directoryLock.ts');
  const script = `import(${JSON.stringify(lockModule)}).then((m) => { m.lockDirectory(${JSON.stringify(directory)}, { name: 'x', harm: 'x' }); console.log('locked'); setInterval(() => {}, 60_000); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return child;
}

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

  it('refuses a directory whose lock names a running process, as an older release wrote it (the pid alone)', () => {
    const directory = path.join(root, 'held');
    writeFileSync(`${directory}.lock`, `${parent.pid}\n`);
    expect(() => lockDirectory(directory, use)).toThrow(`is in use by process ${parent.pid}`);
  });

  it('takes over a lock whose holder is a zombie (exited, not yet collected by its parent)', () => {
    const directory = path.join(root, 'zombie');
    writeFileSync(`${directory}.lock`, `${zombiePid}\n`);
    const release = lockDirectory(directory, use);
    expect(readFileSync(`${directory}.lock`, 'utf8').split('\n')[0]).toBe(`${process.pid}`);
    release();
    expect(existsSync(`${directory}.lock`)).toBe(false);
  });

  it('takes over a lock written in an earlier boot, whose pid now belongs to another process', () => {
    const directory = path.join(root, 'rebooted');
    // The host's pid namespace has the same id at every boot.
    writeFileSync(`${directory}.lock`, `${parent.pid}\nboot=00000000-0000-4000-8000-000000000000\nstart=${startTime(parent.pid!)}\npidns=${pidNamespace}\n`);
    const release = lockDirectory(directory, use);
    expect(readFileSync(`${directory}.lock`, 'utf8')).toContain(`boot=${bootId()}\nstart=${startTime(process.pid)}\n`);
    release();
  });

  it('takes over a lock whose pid now belongs to a process started later than its holder', () => {
    const directory = path.join(root, 'reused');
    writeFileSync(`${directory}.lock`, `${parent.pid}\nboot=${bootId()}\nstart=${Number(startTime(parent.pid!)) - 1}\npidns=${pidNamespace}\n`);
    lockDirectory(directory, use)();
  });

  it('refuses the directory of a live holder, and takes the copy of its DATA_DIR', async () => {
    const original = path.join(root, 'original');
    mkdirSync(path.join(original, 'spool'), { recursive: true });
    const holder = await holderProcess(path.join(original, 'spool'));
    try {
      expect(() => lockDirectory(path.join(original, 'spool'), use)).toThrow(`is in use by process ${holder.pid}`);
      expect(() => lockDirectory(path.join(original, 'spool'), use)).toThrow(`ps -p ${holder.pid} -o cmd`);
      const copy = path.join(root, 'copy');
      execFileSync('cp', ['-a', original, copy]);
      expect(readFileSync(path.join(copy, 'spool.lock'), 'utf8')).toBe(readFileSync(path.join(original, 'spool.lock'), 'utf8'));
      const release = lockDirectory(path.join(copy, 'spool'), use);
      release();
      expect(() => lockDirectory(path.join(original, 'spool'), use)).toThrow(`is in use by process ${holder.pid}`);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

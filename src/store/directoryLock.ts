import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Directories held by this process (a second app in one process has the same pid). */
const heldHere = new Set<string>();

/** What a locked directory is, and why a second holder would do harm: the refusal says both. */
export interface LockedUse {
  name: string;
  harm: string;
}

/**
 * Makes a directory one holder's own, or throws. The lock is a file next to the directory (not in
 * it: a full disk there must not stop a start) naming the process that holds it; one left by a
 * process that is gone (a crash, kill -9) is taken over. Returns the release, for close.
 *
 * Used for the event spool (two pipelines on one spool take each other's segments: a starting one
 * replays every segment it finds as a crashed run's and deletes it once written, so the other's
 * later events, already answered 2xx, are lost) and for embedded PGlite's directory (one process's
 * own database files), both taken before anything in them is opened.
 */
export function lockDirectory(directory: string, use: LockedUse): () => void {
  const owned = path.resolve(directory);
  const file = `${owned}.lock`;
  if (heldHere.has(owned)) throw inUse(owned, process.pid, use);
  if (!createLock(file)) {
    const holder = lockHolder(file);
    if (holder !== undefined && holder !== process.pid && isRunning(holder)) throw inUse(owned, holder, use);
    // Left by a process that is gone: taken over, unless another start takes it first.
    removeLock(file);
    if (!createLock(file)) throw inUse(owned, lockHolder(file), use);
  }
  heldHere.add(owned);
  return () => {
    heldHere.delete(owned);
    if (lockHolder(file) === process.pid) removeLock(file);
  };
}

function removeLock(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function createLock(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function lockHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/**
 * A process that has exited but whose parent has not collected it yet (state Z, zombie, or X, dead,
 * in /proc/PID/stat) still answers kill(pid, 0) for as long as the parent takes, though it holds no
 * file any more: a restart within seconds of a kill -9 was refused for it. Where there is no /proc
 * (not Linux), kill's answer stands.
 */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (command) state ...": the command may hold spaces and parentheses, so the state follows the last ')'.
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}

function inUse(directory: string, holder: number | undefined, use: LockedUse): Error {
  return new Error(
    `${use.name} ${directory} is in use by ${holder === process.pid ? 'another app in this process' : `process ${holder ?? '(unknown)'}`}: ` +
      `each instance needs its own DATA_DIR (${use.harm})`,
  );
}

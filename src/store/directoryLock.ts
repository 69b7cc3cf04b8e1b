import { closeSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync, writeSync } from 'node:fs';
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
 * process that is gone (a crash, kill -9, a reboot) is taken over. Returns the release, for close.
 *
 * A pid alone does not tell that its holder is gone: after a crash or a power loss the pids are
 * handed out again at boot (the same boot order gives similar pids), and a copy of a DATA_DIR (a
 * restored backup) names the process that holds the original. So the lock also names the boot, the
 * holder's start time and the lock file's own device and inode (a copy is another file), and is held
 * only while all of them still match (isHeld). Those are judged only for a holder in this process's
 * pid namespace: one in another (a container sharing the volume: a rolling update's new pod) names
 * a pid and start time of its own namespace, which read here looked reused, and its live lock was
 * taken over; for it the lock stays what it was before the stamps, held while its pid runs here.
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
    const holder = readLock(file);
    if (holder !== undefined && !isThisProcess(holder) && isHeld(file, holder)) throw inUse(owned, holder.pid, use);
    // Left by a process that is gone: taken over, unless another start takes it first.
    removeLock(file);
    if (!createLock(file)) throw inUse(owned, readLock(file)?.pid, use);
  }
  heldHere.add(owned);
  return () => {
    heldHere.delete(owned);
    if (readLock(file)?.pid === process.pid) removeLock(file);
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
    // The path's stat, as isHeld reads it (on some overlay filesystems fstat names another device).
    writeSync(fd, lockText(process.pid, statSync(file)));
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * What a lock file says: the holder's pid on the first line (all an older release wrote, and all it
 * reads back: it parses the leading number), then `key=value` lines that tell this holder from a
 * later process given the same pid. A missing line is not compared.
 */
interface LockStamp {
  pid: number;
  /** The kernel's boot id: another boot means the holder is gone, whatever runs under its pid now. */
  boot?: string;
  /** The holder's start time (clock ticks since boot): another process given the pid has another one. */
  start?: string;
  /** The lock file's own device:inode: a copied lock (a copied DATA_DIR) is another file. */
  file?: string;
  /** The holder's pid namespace: the other stamps mean something only read from the same one. */
  pidns?: string;
}

function lockText(pid: number, stats: { dev: number; ino: number }): string {
  const lines = [`${pid}`, `file=${fileId(stats)}`];
  const boot = bootId();
  const start = startTime(pid);
  const pidns = pidNamespace();
  if (boot !== undefined) lines.push(`boot=${boot}`);
  if (start !== undefined) lines.push(`start=${start}`);
  if (pidns !== undefined) lines.push(`pidns=${pidns}`);
  return `${lines.join('\n')}\n`;
}

function readLock(file: string): LockStamp | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const [first = '', ...rest] = text.split('\n');
  const pid = Number.parseInt(first, 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const stamp: LockStamp = { pid };
  for (const line of rest) {
    const match = /^(boot|start|file|pidns)=(\S+)$/.exec(line);
    if (match) stamp[match[1] as 'boot' | 'start' | 'file' | 'pidns'] = match[2];
  }
  return stamp;
}

/**
 * Whether the lock's holder still holds it: its pid runs, and, when it is of this pid namespace,
 * every stamp the lock has that can be read here matches. A lock of another namespace, or with no
 * stamps (an older release's), is held while its pid runs here, as before the stamps.
 */
function isHeld(file: string, holder: LockStamp): boolean {
  if (!isRunning(holder.pid)) return false;
  if (!inThisPidNamespace(holder)) return true;
  if (holder.boot !== undefined && !matches(holder.boot, bootId())) return false;
  if (holder.start !== undefined && !matches(holder.start, startTime(holder.pid))) return false;
  if (holder.file !== undefined && !matches(holder.file, currentFileId(file))) return false;
  return true;
}

/**
 * A lock this process wrote itself (a second app in one process is refused before, by heldHere): its
 * pid, in this pid namespace, with this start time. A container's main process is pid 1 in every
 * container; one that names pid 1 from another namespace is another container's.
 */
function isThisProcess(holder: LockStamp): boolean {
  if (holder.pid !== process.pid) return false;
  if (!inThisPidNamespace(holder)) return false;
  return holder.pidns === undefined || holder.start === undefined || matches(holder.start, startTime(process.pid));
}

/** A lock with no namespace stamp (an older release's) is judged as before the stamps. */
function inThisPidNamespace(holder: LockStamp): boolean {
  return holder.pidns !== undefined && matches(holder.pidns, pidNamespace());
}

/** The pid namespace this process's pids are numbered in (`pid:[4026531836]`); undefined without /proc. */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** What cannot be read here (no /proc) is not held against the holder. */
function matches(recorded: string, current: string | undefined): boolean {
  return current === undefined || current === recorded;
}

function fileId(stats: { dev: number; ino: number }): string {
  return `${stats.dev}:${stats.ino}`;
}

function currentFileId(file: string): string | undefined {
  try {
    return fileId(statSync(file));
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot. */
function startTime(pid: number): string | undefined {
  const fields = procStatFields(pid);
  // fields[0] is field 3 (the state).
  return fields?.[22 - 3];
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
 * The fields of /proc/PID/stat after "pid (command) ", from the state (field 3) on; undefined where
 * there is no /proc (not Linux) or no such process. The command may hold spaces and parentheses, so
 * the fields follow the last ')'.
 */
function procStatFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).trim().split(' ');
}

/**
 * A process that has exited but whose parent has not collected it yet (state Z, zombie, or X, dead,
 * in /proc/PID/stat) still answers kill(pid, 0) for as long as the parent takes, though it holds no
 * file any more: a restart within seconds of a kill -9 was refused for it. Where there is no /proc
 * (not Linux), kill's answer stands.
 */
function isZombie(pid: number): boolean {
  const state = procStatFields(pid)?.[0];
  return state === 'Z' || state === 'X';
}

function inUse(directory: string, holder: number | undefined, use: LockedUse): Error {
  const other = holder !== undefined && holder !== process.pid;
  return new Error(
    `${use.name} ${directory} is in use by ${holder === process.pid ? 'another app in this process' : `process ${holder ?? '(unknown)'}`}: ` +
      `each instance needs its own DATA_DIR (${use.harm})` +
      // A lock whose stamps cannot be compared (no /proc, or an older release's) may still be stale.
      (other ? `; if \`ps -p ${holder} -o cmd\` shows no adsvc on this DATA_DIR, the lock is stale: delete ${directory}.lock` : ''),
  );
}

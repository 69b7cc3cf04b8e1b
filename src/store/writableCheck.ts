import { accessSync, closeSync, constants, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { freeBytes, megabytes } from './diskSpace.js';

/** What a check answers: undefined while the file system takes writes, or why it does not. */
export interface WritableCheck {
  /** The error that says the file system no longer takes writes (lasting: until it is repaired). */
  fault(): NodeJS.ErrnoException | undefined;
  /** Less free space than the floor: what to say, until space is freed. */
  shortOfSpace(): string | undefined;
  close(): void;
}

const NOTHING = Buffer.alloc(0);
const FAULT_CODES = new Set(['EROFS', 'EIO']);

/**
 * statfs(2) is a round trip on network and FUSE file systems (NFS asks its server at each call: an
 * EFS volume's DATA_DIR would pay it before every statement, on the main thread), so far above the
 * floor its answer is kept this long. Within NEAR_FLOOR_FLOORS x the floor it is asked at every
 * statement: only something else writing (floor x NEAR_FLOOR_FLOORS - floor) in this time would pass
 * the floor unseen, and PGlite's own statements write KBs (rev42 R10).
 */
const FREE_SPACE_KEPT_MS = 100;
const NEAR_FLOOR_FLOORS = 4;

/**
 * Tells, without writing anything, whether the file system holding `file` (opened here for writing,
 * kept open) still takes writes, and whether it has `floorBytes` free (asked again at most every
FREE_SPACE_KEPT_MS while far above it): about 3 µs for both
 * (bench/README.md "Embedded Postgres: the writable check"), cheap enough before every statement.
 *
 * Two questions, as kernels turn a faulty ext4 read-only two ways. A write of no bytes to the open
 * file: since Linux 6.6, ext4's `errors=remount-ro` no longer marks the mount read-only but refuses
 * every write to the file system, to files already open too, with EROFS (EIO after a shutdown), and
 * it does so for a write of nothing as well, changing nothing when it is allowed. And access(W_OK):
 * a mount marked read-only (older kernels after the same error, an operator's `mount -o remount,ro`)
 * answers EROFS, to root too; on 6.6 and later it answers yes after the fault, and /proc/self/mountinfo
 * still says `rw` (with `emergency_ro` among ext4's own options), so neither alone would do.
 */
export function openWritableCheck(file: string, floorBytes: number): WritableCheck {
  const fd = openSync(file, 'r+');
  const directory = path.dirname(file);
  let knownFree = 0;
  let askedAtMs = -Infinity;
  return {
    fault: () => {
      try {
        writeSync(fd, NOTHING, 0, 0, 0);
        accessSync(file, constants.W_OK);
        return undefined;
      } catch (error) {
        return FAULT_CODES.has((error as NodeJS.ErrnoException).code ?? '') ? (error as NodeJS.ErrnoException) : undefined;
      }
    },
    // A write of nothing succeeds on a full file system: its free space is asked (statfs(2)) instead.
    shortOfSpace: () => {
      const nowMs = performance.now();
      if (knownFree >= NEAR_FLOOR_FLOORS * floorBytes && nowMs - askedAtMs < FREE_SPACE_KEPT_MS) return undefined;
      let free: number;
      try {
        free = freeBytes(directory);
      } catch {
        // A file system that cannot say: fault() answers for it.
        return undefined;
      }
      knownFree = free;
      askedAtMs = nowMs;
      return free < floorBytes ? `the file system of ${directory} has ${megabytes(free)} free, less than the ${megabytes(floorBytes)} kept free for PGlite's write-ahead log` : undefined;
    },
    close: () => closeSync(fd),
  };
}

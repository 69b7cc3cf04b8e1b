import { accessSync, closeSync, constants, openSync, writeSync } from 'node:fs';

/** What a check answers: the error that says the file system no longer takes writes, or undefined. */
export interface WritableCheck {
  fault(): NodeJS.ErrnoException | undefined;
  close(): void;
}

const NOTHING = Buffer.alloc(0);
const FAULT_CODES = new Set(['EROFS', 'EIO']);

/**
 * Tells, without writing anything, whether the file system holding `file` (opened here for writing,
 * kept open) still takes writes: about 3 µs a check (bench/README.md "Embedded Postgres: the
 * writable check"), cheap enough before every statement.
 *
 * Two questions, as kernels turn a faulty ext4 read-only two ways. A write of no bytes to the open
 * file: since Linux 6.6, ext4's `errors=remount-ro` no longer marks the mount read-only but refuses
 * every write to the file system, to files already open too, with EROFS (EIO after a shutdown), and
 * it does so for a write of nothing as well, changing nothing when it is allowed. And access(W_OK):
 * a mount marked read-only (older kernels after the same error, an operator's `mount -o remount,ro`)
 * answers EROFS, to root too; on 6.6 and later it answers yes after the fault, and /proc/self/mountinfo
 * still says `rw` (with `emergency_ro` among ext4's own options), so neither alone would do.
 */
export function openWritableCheck(file: string): WritableCheck {
  const fd = openSync(file, 'r+');
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
    close: () => closeSync(fd),
  };
}

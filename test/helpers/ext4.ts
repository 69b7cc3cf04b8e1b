import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, ftruncateSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Mounts a fresh ext4 image of `bytes` (a sparse file beside `directory`) on `directory` through a
 * loop device, with `errors=remount-ro`, as a production disk often is. Needs root (canMount).
 * Returns `fail`, which makes the kernel record a file-system error, as on a real I/O error: ext4
 * turns the mount read-only at once, also for files already open for writing (a tmpfs cannot be
 * remounted read-only while PGlite holds its files open), `errorTrigger` (the file whose write is
 * that `fail`, for another process to make), `image` (the file the loop device writes: a copy of it
 * is what the disk holds, as after a power loss), and `unmount`.
 */
export function mountExt4(directory: string, bytes: number): { image: string; errorTrigger: string; fail: () => void; unmount: () => void } {
  const image = `${directory}.ext4`;
  const fd = openSync(image, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
  execFileSync('mkfs.ext4', ['-q', '-F', image]);
  mkdirSync(directory, { recursive: true });
  execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, directory]);
  const device = path.basename(execFileSync('findmnt', ['-no', 'SOURCE', directory], { encoding: 'utf8' }).trim());
  const errorTrigger = `/sys/fs/ext4/${device}/trigger_fs_error`;
  return {
    image,
    errorTrigger,
    fail: () => writeFileSync(errorTrigger, 'adsvc test: a disk error\n'),
    unmount: () => {
      execFileSync('umount', ['-l', directory]);
      rmSync(image, { force: true });
    },
  };
}

/**
 * Mounts a copy of an ext4 image on `directory` after e2fsck has replayed its journal, as a machine
 * coming back from a power loss does. Returns its unmount (which removes the copy).
 */
export function mountCopyAfterPowerLoss(copy: string, directory: string): () => void {
  // e2fsck exits 1 when it fixed something (the journal's replay): the disk is then consistent.
  try {
    execFileSync('e2fsck', ['-fy', copy], { stdio: 'ignore' });
  } catch (error) {
    if ((error as { status?: number }).status !== 1) throw error;
  }
  mkdirSync(directory, { recursive: true });
  execFileSync('mount', ['-o', 'loop', copy, directory]);
  return () => {
    execFileSync('umount', ['-l', directory]);
    rmSync(copy, { force: true });
  };
}

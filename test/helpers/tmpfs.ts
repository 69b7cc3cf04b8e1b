import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Mounting a file system needs root; CI runs as root, elsewhere the disk-full tests skip and say so. */
export const canMount = process.getuid?.() === 0;
export const notRootMessage = 'disk-full tests need root to mount a tmpfs: skipped (CI runs them as root)';

/** Mounts a real tmpfs of `bytes` on `directory` (created if missing); returns its unmount. */
export function mountTmpfs(directory: string, bytes: number): () => void {
  mkdirSync(directory, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', directory]);
  return () => execFileSync('umount', ['-l', directory]);
}

/** Mounts `source` on `directory` (created if missing), so that `directory` sits on `source`'s file system; returns its unmount. */
export function bindMount(source: string, directory: string): () => void {
  mkdirSync(directory, { recursive: true });
  execFileSync('mount', ['--bind', source, directory]);
  return () => execFileSync('umount', ['-l', directory]);
}

/**
 * Writes a file in `directory` until the file system answers ENOSPC, then gives `leaveBytes` of it
 * back; returns the file's removal (frees the space).
 */
export function fillDisk(directory: string, leaveBytes = 0): () => void {
  const file = path.join(directory, 'filler');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 0x78);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    if (leaveBytes > 0) ftruncateSync(fd, Math.max(0, written - leaveBytes));
  } finally {
    closeSync(fd);
  }
  return () => unlinkSync(file);
}

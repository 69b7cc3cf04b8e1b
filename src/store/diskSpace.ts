import { statfsSync } from 'node:fs';

/**
 * Below this much free space an engine that fails to open is taken to have failed for want of it:
 * embedded PGlite only says "Aborted()" when a restart cannot write its write-ahead log (16 MB segments).
 */
const LOW_SPACE_BYTES = 64 * 1024 * 1024;

/** "no space left ..." when the file system holding `directory` is (nearly) full; undefined otherwise. */
export function lowDiskSpace(directory: string): string | undefined {
  let free: number;
  try {
    const stats = statfsSync(directory);
    free = stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
  if (free >= LOW_SPACE_BYTES) return undefined;
  return `no space left on the file system of DATA_DIR ${directory} (${(free / 1_048_576).toFixed(1)} MB free): free some and start again`;
}

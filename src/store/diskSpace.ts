import { statfsSync } from 'node:fs';

/** The size of one of Postgres's write-ahead log files (PGlite's too: initdb's default). */
const WAL_SEGMENT_BYTES = 16 * 1024 * 1024;

/**
 * Below this much free space an engine that fails to open is taken to have failed for want of it:
 * embedded PGlite only says "Aborted()" when a restart cannot write its write-ahead log.
 */
const LOW_SPACE_BYTES = 4 * WAL_SEGMENT_BYTES;

/**
 * Below this much free space embedded PGlite is sent no statement (postgres.ts): a commit that fills
 * its WAL file makes the next one in the middle of writing the log, where a full disk is a PANIC in
 * Postgres that PGlite never returns from (R4: a tmpfs with 8 MB free took 736 management writes
 * answered 201, then the next got no answer and the watchdog ended the process). Two files: the
 * one a commit may need, and room for what the statements between two checks write.
 */
export const POSTGRES_FREE_SPACE_FLOOR_BYTES = 2 * WAL_SEGMENT_BYTES;

/** The space left for an unprivileged user (df's Avail) on the file system holding `directory`. */
export function freeBytes(directory: string): number {
  const stats = statfsSync(directory);
  return stats.bavail * stats.bsize;
}

/** Bytes as MB with one decimal, as every message about free space gives them. */
export const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** "no space left ..." when the file system holding `directory` is (nearly) full; undefined otherwise. */
export function lowDiskSpace(directory: string): string | undefined {
  let free: number;
  try {
    free = freeBytes(directory);
  } catch {
    return undefined;
  }
  if (free >= LOW_SPACE_BYTES) return undefined;
  return `no space left on the file system of DATA_DIR ${directory} (${megabytes(free)} free): free some and start again`;
}

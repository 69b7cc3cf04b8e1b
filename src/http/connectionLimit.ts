import { readFileSync } from 'node:fs';

/**
 * Descriptors kept back from connections for the stores: spool segments, embedded ClickHouse (its
 * epoll, parts and merges), the Postgres pool or PGlite's files, the CIDR and model files. An idle
 * instance holds about 200; a quarter of the limit, at least 1,024 (but never over half), leaves
 * merges and a backlog's spool room. A client holding every descriptor once took them all (EMFILE:
 * nothing answered, chdb failing).
 */
export function defaultMaxConnections(descriptorLimit: number): number {
  const reserve = Math.min(Math.max(1024, Math.floor(descriptorLimit / 4)), Math.floor(descriptorLimit / 2));
  return descriptorLimit - reserve;
}

/**
 * The process's open-file limit (Node raises the soft limit to the hard one at start), from
 * /proc/self/limits; 1,024, the usual soft limit, where that cannot be read (not Linux).
 * "unlimited" is capped by the kernel's fs.nr_open, 1,048,576 by default.
 */
export function descriptorLimit(limits = readLimits()): number {
  const soft = /^Max open files\s+(\S+)/m.exec(limits ?? '')?.[1];
  if (soft === undefined) return 1024;
  if (soft === 'unlimited') return 1_048_576;
  const parsed = Number(soft);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : 1024;
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

import type { EventPipeline } from './eventPipeline.js';

/**
 * Wraps a history query so that its first answers wait for the spool this process found at start
 * (the events a crashed run accepted but never wrote) to reach ClickHouse: those events are in no
 * ledger, so until they are written ClickHouse would call their serves unbilled. Once a flush has
 * written everything, queries go straight through; while it fails, the query fails with it (the
 * caller's fallback never bills).
 */
export function afterSpoolReplay<A extends unknown[], R>(events: EventPipeline, query: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  let replayed = events.pending() === 0;
  return async (...args) => {
    if (!replayed) {
      await events.flush();
      replayed = true;
    }
    return query(...args);
  };
}

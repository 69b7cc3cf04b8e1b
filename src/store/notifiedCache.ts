import type { Postgres, SqlExecutor } from './postgres.js';

/**
 * `find`, with its answers remembered until any notification on `channel`, where the store
 * notifies (embedded PGlite: every write is this process's own and a trigger's NOTIFY arrives at
 * its commit). On a Postgres server `find` itself: other instances write too, and a LISTEN
 * connection can be lost unnoticed. Misses (undefined) are never remembered; until the
 * subscription is in place nothing is; an answer whose query ran across a notification is not
 * either. Past `maxEntries` the memory starts again (a bound, not a tuning knob).
 */
export function notifiedCache<Row>(
  db: SqlExecutor,
  channel: string,
  maxEntries: number,
  find: (key: string) => Promise<Row | undefined>,
): (key: string) => Promise<Row | undefined> {
  const { listen } = db as Partial<Postgres>;
  if (!listen) return find;
  const remembered = new Map<string, Row>();
  let subscribed = false;
  /** Bumped by every notification. */
  let generation = 0;
  listen
    .call(db, channel, () => {
      generation += 1;
      remembered.clear();
    })
    .then(
      () => {
        subscribed = true;
      },
      () => undefined, // Without the subscription every call keeps asking the store.
    );
  return async (key) => {
    const known = remembered.get(key);
    if (known !== undefined) return known;
    const before = generation;
    const found = await find(key);
    if (found !== undefined && subscribed && generation === before) {
      if (remembered.size >= maxEntries) remembered.clear();
      remembered.set(key, found);
    }
    return found;
  };
}

import type { Postgres } from '../store/postgres.js';
import type { IndexedDestinations } from '../serving/indexedDestinations.js';

/** An edited destination takes effect on clicks within this long. */
const CACHE_TTL_MS = 60_000;
const CACHE_CAPACITY = 50_000;

interface CachedDestination {
  /** undefined: the creative does not exist (cached too, so a flood of forged ids costs no queries). */
  url: string | undefined;
  expiresAt: number;
}

/**
 * Where a click goes: the creative's destination_url from Postgres, never anything from the request,
 * so the redirect layer cannot be used as an open redirect. Cached in memory per process; the oldest
 * entries are dropped first beyond the capacity. When Postgres fails, the last answer it gave is used
 * however old (stale on error), else the serving index's copy: the click is still redirected and
 * recorded. Only a creative known to neither fails the click (503).
 */
export function creativeDestinations(
  db: Postgres,
  indexed: IndexedDestinations,
): (creativeId: string, lineItemId: string, nowMs: number) => Promise<string | undefined> {
  const cache = new Map<string, CachedDestination>();
  return async (creativeId, lineItemId, nowMs) => {
    const key = `${creativeId}/${lineItemId}`;
    const cached = cache.get(key);
    if (cached && cached.expiresAt > nowMs) return cached.url;
    let rows: Array<{ destination_url: string }>;
    try {
      ({ rows } = await db.query<{ destination_url: string }>(
        'SELECT destination_url FROM creatives WHERE id = $1 AND line_item_id = $2',
        [creativeId, lineItemId],
      ));
    } catch (error) {
      const fallback = cached?.url ?? indexed.get(creativeId, lineItemId);
      if (fallback === undefined) throw error;
      return fallback;
    }
    cache.delete(key);
    if (cache.size >= CACHE_CAPACITY) cache.delete(cache.keys().next().value!);
    cache.set(key, { url: rows[0]?.destination_url, expiresAt: nowMs + CACHE_TTL_MS });
    return rows[0]?.destination_url;
  };
}

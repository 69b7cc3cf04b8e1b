import type { Postgres } from '../store/postgres.js';
import type { IndexedDestinations } from '../serving/indexedDestinations.js';

/** An edited destination takes effect on clicks within this long. */
const CACHE_TTL_MS = 60_000;
const CACHE_CAPACITY = 50_000;
/**
 * How long a click waits for Postgres when an answer is at hand without it (the expired cache entry,
 * the serving index's copy): a person is waiting for the redirect, and a server that stops answering
 * would otherwise hold it for the query bound (POSTGRES_QUERY_TIMEOUT_MS) or the pool's 5 s wait.
 * A lookup answers in milliseconds; past this the click goes where that answer says.
 */
const WAIT_WITH_FALLBACK_MS = 1000;

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
    const fallback = () => cached?.url ?? indexed.get(creativeId, lineItemId);
    let rows: Array<{ destination_url: string }>;
    try {
      const lookup = db.query<{ destination_url: string }>('SELECT destination_url FROM creatives WHERE id = $1 AND line_item_id = $2', [creativeId, lineItemId]);
      const answer = fallback() === undefined ? await lookup : await withinWait(lookup);
      if (answer === undefined) return fallback();
      ({ rows } = answer);
    } catch (error) {
      const url = fallback();
      if (url === undefined) throw error;
      return url;
    }
    cache.delete(key);
    if (cache.size >= CACHE_CAPACITY) cache.delete(cache.keys().next().value!);
    cache.set(key, { url: rows[0]?.destination_url, expiresAt: nowMs + CACHE_TTL_MS });
    return rows[0]?.destination_url;
  };
}

/** The lookup's answer, or undefined when it has not come within WAIT_WITH_FALLBACK_MS (it is then left to end on its own bound). */
async function withinWait<T>(lookup: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), WAIT_WITH_FALLBACK_MS);
  });
  lookup.catch(() => undefined);
  try {
    return await Promise.race([lookup, late]);
  } finally {
    clearTimeout(timer);
  }
}

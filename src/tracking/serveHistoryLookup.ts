import { NO_HISTORY, type ServeHistory } from './serveHistory.js';

export interface ServeHistoryLookupOptions {
  /** How long the first serve of a batch waits for others to join its query. */
  windowMs: number;
  /** How long a query may take, from when it is sent, before its serves are answered with an error (the callers' fallback). */
  timeoutMs: number;
}

/** Serves that start a query at once, without waiting for the window, when none is under way. */
const MAX_BATCH_SERVES = 1000;
/** Most lookups waiting at once: past it a lookup fails at once instead of queueing. */
const MAX_WAITING_LOOKUPS = 50_000;

interface Waiter {
  resolve(history: ServeHistory): void;
  reject(error: Error): void;
}

/**
 * Asks ClickHouse about serves this process does not know, many per query and one query at a time:
 * the first serve starts a window of `windowMs` (or MAX_BATCH_SERVES of them start the query at
 * once), and every serve asked while a query is under way joins the next, sent when that one
 * settles. One at a time because embedded chdb runs parameterized queries one after another anyway
 * (process-wide), and a query's timeout ran while it waited there behind its own siblings: after
 * a restart, 3000 clicks at once made queries of up to 1000 serves sent within a second, one of 658
 * serves timed out behind the others, and its clicks were stored impression_unverified (try45 F2,
 * docs/tracking.md). Bounded in every way a slow ClickHouse could stretch it: a query answers or
 * fails within `timeoutMs` of being sent, and the next is sent then at the latest, so each lookup
 * waits at most windowMs + 2 x timeoutMs; at most MAX_WAITING_LOOKUPS wait at once.
 */
export class ServeHistoryLookup {
  private collecting = new Map<string, Waiter[]>();
  private windowTimer: NodeJS.Timeout | undefined;
  private querying = false;
  private waiting = 0;

  constructor(
    private readonly query: (serveIds: string[]) => Promise<Map<string, ServeHistory>>,
    private readonly options: ServeHistoryLookupOptions,
  ) {}

  find(serveId: string): Promise<ServeHistory> {
    if (this.waiting >= MAX_WAITING_LOOKUPS) {
      return Promise.reject(new Error(`${MAX_WAITING_LOOKUPS} serve lookups are already waiting for ClickHouse`));
    }
    this.waiting += 1;
    return new Promise<ServeHistory>((resolve, reject) => {
      const waiters = this.collecting.get(serveId);
      if (waiters) waiters.push({ resolve, reject });
      else this.collecting.set(serveId, [{ resolve, reject }]);
      if (this.querying) return;
      if (this.collecting.size >= MAX_BATCH_SERVES) this.send();
      else this.windowTimer ??= setTimeout(() => this.send(), this.options.windowMs);
    });
  }

  private send(): void {
    clearTimeout(this.windowTimer);
    this.windowTimer = undefined;
    const batch = this.collecting;
    if (batch.size === 0) return;
    this.collecting = new Map();
    this.querying = true;
    const settle = (answer: (waiter: Waiter, serveId: string) => void) => {
      for (const [serveId, waiters] of batch) {
        this.waiting -= waiters.length;
        for (const waiter of waiters) answer(waiter, serveId);
      }
    };
    withTimeout(this.query([...batch.keys()]), this.options.timeoutMs)
      .then(
        (histories) => settle((waiter, serveId) => waiter.resolve(histories.get(serveId) ?? NO_HISTORY)),
        (error: Error) => settle((waiter) => waiter.reject(error)),
      )
      .finally(() => {
        this.querying = false;
        // Those that came meanwhile waited for this query already: theirs goes now.
        this.send();
      });
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`ClickHouse did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

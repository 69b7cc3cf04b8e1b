import { NO_HISTORY, type ServeHistory } from './serveHistory.js';

export interface ServeHistoryLookupOptions {
  /** How long the first serve of a batch waits for others to join its query. */
  windowMs: number;
  /** How long a query may take before its serves are answered with an error (the callers' fallback). */
  timeoutMs: number;
}

/** Most serve ids in one query: a fuller batch is sent at once, without waiting for the window. */
const MAX_BATCH_SERVES = 1000;
/** Most lookups waiting at once (about 50 queries' worth): past it a lookup fails at once instead of queueing. */
const MAX_WAITING_LOOKUPS = 50_000;

interface Waiter {
  resolve(history: ServeHistory): void;
  reject(error: Error): void;
}

/**
 * Asks ClickHouse about serves this process does not know, many per query: the first serve starts a
 * window of `windowMs`, every serve asked within it (up to MAX_BATCH_SERVES) joins the same query, and
 * the answer settles them all. Bounded in every way a slow ClickHouse could stretch it: each lookup
 * waits at most windowMs + timeoutMs, and at most MAX_WAITING_LOOKUPS wait at once.
 */
export class ServeHistoryLookup {
  private collecting = new Map<string, Waiter[]>();
  private windowTimer: NodeJS.Timeout | undefined;
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
      if (this.collecting.size >= MAX_BATCH_SERVES) this.send();
      else this.windowTimer ??= setTimeout(() => this.send(), this.options.windowMs);
    });
  }

  private send(): void {
    clearTimeout(this.windowTimer);
    this.windowTimer = undefined;
    const batch = this.collecting;
    this.collecting = new Map();
    const settle = (answer: (waiter: Waiter, serveId: string) => void) => {
      for (const [serveId, waiters] of batch) {
        this.waiting -= waiters.length;
        for (const waiter of waiters) answer(waiter, serveId);
      }
    };
    withTimeout(this.query([...batch.keys()]), this.options.timeoutMs).then(
      (histories) => settle((waiter, serveId) => waiter.resolve(histories.get(serveId) ?? NO_HISTORY)),
      (error: Error) => settle((waiter) => waiter.reject(error)),
    );
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`ClickHouse did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

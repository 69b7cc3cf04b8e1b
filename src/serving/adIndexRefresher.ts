import type { FastifyBaseLogger } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { buildAdIndex, rerank, type AdIndex, type IndexBuildDeps } from './adIndex.js';
import { loadCatalog, readCatalogVersion } from './catalogQueries.js';
import { startPeriodicTask, type PeriodicTask } from './periodicTask.js';

export interface AdIndexRefresherOptions {
  db: Postgres;
  refreshMs: number;
  build: IndexBuildDeps;
  /** Called with every new index (so per-line-item state of removed line items can go) and how long it took. */
  onBuilt(index: AdIndex, buildMs: number): void;
  log: FastifyBaseLogger;
}

/**
 * Holds the current ad index and rebuilds it when the catalog version changes (polled every
 * INDEX_REFRESH_MS), and once more on the poll after a change: the version is a sequence, bumped
 * before the changing transaction commits, so the first rebuild may not see that change yet.
 * A failed rebuild keeps the index it had.
 */
export class AdIndexRefresher {
  private task: PeriodicTask | undefined;
  private confirmPending = false;

  private constructor(
    public current: AdIndex,
    private readonly options: AdIndexRefresherOptions,
  ) {}

  /** Builds the first index (a failure here fails the start) and starts polling. */
  static async start(options: AdIndexRefresherOptions): Promise<AdIndexRefresher> {
    const refresher = new AdIndexRefresher(await AdIndexRefresher.build(options), options);
    refresher.task = startPeriodicTask('ad index refresh', options.refreshMs, () => refresher.poll(), options.log);
    return refresher;
  }

  /** Polls now, so a change this instance just made is served from the next request on. */
  async refreshNow(): Promise<void> {
    await this.task?.runNow();
  }

  /** Re-estimates expected values and re-sorts the current index (after a learning refresh). */
  rerank(): void {
    rerank(this.current);
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  private async poll(): Promise<void> {
    const version = await readCatalogVersion(this.options.db);
    if (version !== this.current.version) {
      this.confirmPending = true;
    } else if (this.confirmPending) {
      this.confirmPending = false;
    } else {
      return;
    }
    try {
      this.current = await AdIndexRefresher.build(this.options);
    } catch (error) {
      this.options.log.error({ err: error }, 'rebuilding the ad index failed; serving from the previous one');
    }
  }

  private static async build(options: AdIndexRefresherOptions): Promise<AdIndex> {
    const started = Date.now();
    // Read before loading: a change made during the load bumps the version past it, so the next poll rebuilds.
    const version = await readCatalogVersion(options.db);
    const rows = await loadCatalog(options.db);
    const { index, skipped } = await buildAdIndex(version, rows, options.build);
    const ms = Date.now() - started;
    options.onBuilt(index, ms);
    options.log.info(
      { version, lineItems: index.lineItems.length, placements: index.placements.size, skipped, ms },
      'ad index built',
    );
    return index;
  }
}

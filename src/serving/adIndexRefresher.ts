import type { FastifyBaseLogger } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { buildAdIndex, rerank, type AdIndex, type IndexBuildDeps } from './adIndex.js';
import { AdIndexPatcher, type IndexPatch } from './adIndexPatcher.js';
import { CatalogChangeFeed, pruneCatalogChanges } from './catalogChanges.js';
import { loadCatalog, loadCatalogPart } from './catalogQueries.js';
import { startPeriodicTask, type PeriodicTask } from './periodicTask.js';

/** How long catalog_changes keeps a change; an instance that could not read them for half of that rebuilds. */
const CHANGE_RETENTION_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface AdIndexRefresherOptions {
  db: Postgres;
  /** How often catalog_changes is read (INDEX_REFRESH_MS). */
  refreshMs: number;
  build: IndexBuildDeps;
  /** Called with every index built from the whole catalog (at start) and how long it took. */
  onBuilt(index: AdIndex, buildMs: number): void;
  /** Called after every incremental patch: the entries that left the index and those that came in. */
  onPatched(index: AdIndex, patch: IndexPatch, changes: number, patchMs: number): void;
  log: FastifyBaseLogger;
}

/**
 * Holds the ad index: built from the whole catalog once, at start, then kept current by reading
 * catalog_changes every INDEX_REFRESH_MS and reloading only the rows a change names (see
 * CatalogChangeFeed for why no commit is missed). A failed read or reload keeps the index as it
 * was and retries the same changes at the next poll.
 */
export class AdIndexRefresher {
  private task: PeriodicTask | undefined;
  private pruneTask: PeriodicTask | undefined;
  private lastReadAt = Date.now();

  private constructor(
    public current: AdIndex,
    private patcher: AdIndexPatcher,
    private feed: CatalogChangeFeed,
    private readonly options: AdIndexRefresherOptions,
  ) {}

  /** Builds the first index (a failure here fails the start) and starts following changes. */
  static async start(options: AdIndexRefresherOptions): Promise<AdIndexRefresher> {
    const { index, feed, patcher } = await AdIndexRefresher.build(options);
    const refresher = new AdIndexRefresher(index, patcher, feed, options);
    refresher.task = startPeriodicTask('ad index refresh', options.refreshMs, () => refresher.poll(), options.log);
    refresher.pruneTask = startPeriodicTask(
      'catalog changes prune',
      PRUNE_EVERY_MS,
      async () => {
        await pruneCatalogChanges(options.db, CHANGE_RETENTION_MS);
      },
      options.log,
    );
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
    await Promise.all([this.task?.stop(), this.pruneTask?.stop()]);
  }

  private async poll(): Promise<void> {
    // Changes older than the retention may be gone: after that long without a read, start afresh.
    if (Date.now() - this.lastReadAt > CHANGE_RETENTION_MS / 2) {
      this.options.log.warn('catalog changes not read for too long; rebuilding the ad index');
      const { index, feed, patcher } = await AdIndexRefresher.build(this.options);
      [this.current, this.feed, this.patcher, this.lastReadAt] = [index, feed, patcher, Date.now()];
      return;
    }
    const started = Date.now();
    const changed = await this.feed.next();
    if (changed === undefined) {
      this.lastReadAt = started;
      return;
    }
    const rows = await loadCatalogPart(this.options.db, changed.keys);
    const patch = this.patcher.apply(changed.keys, rows, changed.horizon);
    changed.commit();
    this.lastReadAt = started;
    const ms = Date.now() - started;
    this.options.onPatched(this.current, patch, changed.changes, ms);
    this.options.log.debug(
      { changes: changed.changes, removed: patch.removed.length, added: patch.added.length, skipped: patch.skipped, ms },
      'ad index patched',
    );
  }

  private static async build(options: AdIndexRefresherOptions) {
    const started = Date.now();
    const rows = await loadCatalog(options.db);
    const { index, skipped } = await buildAdIndex(rows.horizon, rows, options.build);
    const patcher = new AdIndexPatcher(index, options.build);
    const ms = Date.now() - started;
    options.onBuilt(index, ms);
    options.log.info({ lineItems: index.lineItems.length, placements: index.placements.size, skipped, ms }, 'ad index built');
    return { index, feed: new CatalogChangeFeed(options.db, rows.horizon), patcher };
  }
}

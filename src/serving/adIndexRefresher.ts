import type { FastifyBaseLogger } from 'fastify';
import type { Postgres } from '../store/postgres.js';
import { buildAdIndex, type AdIndex, type IndexBuildDeps, type IndexRows } from './adIndex.js';
import { AdIndexPatcher, type IndexPatch } from './adIndexPatcher.js';
import { CATALOG_CHANGES_CHANNEL, CatalogChangeFeed, pruneCatalogChanges, readHorizon } from './catalogChanges.js';
import { lineItemRowsOf, loadCatalogPart, readCatalog } from './catalogQueries.js';
import { CatalogSnapshot, type BaseBytes, type LoadedSnapshot } from './catalogSnapshot.js';
import { creativeRangesAside, groupCreativeRows } from './creativeGroups.js';
import { startPeriodicTask, type PeriodicTask } from '../periodicTask.js';
import { rerankSteps } from './rerankInSteps.js';

/** Reranks begun again after a patch or trained clusters dropped one, before waiting for the next refresh. */
const RERANK_ATTEMPTS = 3;

export interface AdIndexRefresherOptions {
  db: Postgres;
  /** How often catalog_changes is read (INDEX_REFRESH_MS). */
  refreshMs: number;
  /** How often it is read all the same where the store notifies every change (INDEX_REFRESH_NOTIFIED_MS). */
  notifiedRefreshMs: number;
  /** How often changes older than one such interval are deleted (INDEX_CHANGES_PRUNE_MS). */
  pruneMs: number;
  build: IndexBuildDeps;
  /** Where the catalog snapshot is kept (DATA_DIR/catalog-snapshot); undefined when CATALOG_SNAPSHOT is off. */
  snapshotDir: string | undefined;
  /** The snapshot's base, when the caller began reading it earlier (readBaseAhead of snapshotDir). */
  snapshotBase?: Promise<BaseBytes>;
  /** Whether semantic matching is on (the word vectors loaded): the snapshot's semantic file is read only then. */
  semanticOn?: Promise<boolean>;
  /**
   * Awaited before the first index is built: what the build reads besides the rows (the learned
   * delivery stats, see DeliveryLearning.preload) is current, so the index needs no rerank after it.
   */
  beforeBuild?: Promise<unknown>;
  /** Called with every index built from the whole catalog (at start) and how long it took. */
  onBuilt(index: AdIndex, buildMs: number): void;
  /** Called after every incremental patch: the entries that left the index and those that came in. */
  onPatched(index: AdIndex, patch: IndexPatch, changes: number, patchMs: number): void;
  log: FastifyBaseLogger;
}

/**
 * Holds the ad index: built from the whole catalog once, at start, then kept current by reading
 * catalog_changes and reloading only the rows a change names (see CatalogChangeFeed for why no
 * commit is missed). On a Postgres server it reads every INDEX_REFRESH_MS: other instances write
 * too. On embedded PGlite every catalog write is this process's own and notifies at its commit
 * (migrations/0010), so it reads when told, at once, and every INDEX_REFRESH_NOTIFIED_MS besides;
 * each poll is a query run on the main thread, between requests. A failed read or reload keeps
 * the index as it was and retries the same changes at the next poll. Rebuilt only when changes it
 * had not read yet were pruned (it could not read for a whole INDEX_CHANGES_PRUNE_MS).
 */
export class AdIndexRefresher {
  private task: PeriodicTask | undefined;
  private pruneTask: PeriodicTask | undefined;
  /**
   * The horizon read at the start or at the previous prune: what is below it is deleted by the next
   * prune, which its schedule starts INDEX_CHANGES_PRUNE_MS after the previous run ended, so an
   * instance that read the log within that interval has read past it.
   */
  private pruneBelow: string | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  /** The rerank under way (rerankSteps): a patch or a rebuild drops it, as they change the lists it re-sorts aside. */
  private reranking: Generator<void, boolean> | undefined;
  private stopping = false;

  private constructor(
    public current: AdIndex,
    private patcher: AdIndexPatcher,
    private feed: CatalogChangeFeed,
    private readonly options: AdIndexRefresherOptions,
    private readonly snapshot: CatalogSnapshot | undefined,
  ) {}

  /**
   * Builds the first index (a failure here fails the start) and starts following changes. From the
   * catalog snapshot when there is a current one: then the change log is read before the index is
   * used, so whatever changed while the service was down is served or gone from the first request.
   */
  static async start(options: AdIndexRefresherOptions): Promise<AdIndexRefresher> {
    const { db } = options;
    const snapshot = options.snapshotDir ? await CatalogSnapshot.open(options.snapshotDir, db, options.log) : undefined;
    const loaded = await snapshot?.load(options.snapshotBase, options.semanticOn);
    const restored = snapshot && loaded && (await AdIndexRefresher.restore(options, snapshot, loaded));
    const { index, feed, patcher } = restored ?? (await AdIndexRefresher.build(options, snapshot));
    const refresher = new AdIndexRefresher(index, patcher, feed, options, snapshot);
    if (restored) {
      // Throws, failing the start, when the change log cannot be read: a snapshot alone may be stale.
      await refresher.poll();
      // The index as it serves: after the change log's catch-up, not the base's.
      const { current } = refresher;
      options.log.info(
        { lineItems: current.lineItems.length, placements: current.placements.size, ...restored.report, ms: Date.now() - restored.started },
        'ad index built from the catalog snapshot and the change log since',
      );
    }
    const pollMs = db.listen ? options.notifiedRefreshMs : options.refreshMs;
    refresher.task = startPeriodicTask('ad index refresh', pollMs, () => refresher.poll(), options.log);
    // Read at the start, so the log is first pruned one interval after it (not two), below a horizon
    // read one interval before.
    refresher.pruneBelow = await readHorizon(db);
    refresher.pruneTask = startPeriodicTask('catalog changes prune', options.pruneMs, () => refresher.prune(), options.log);
    if (db.listen) {
      refresher.unlisten = await db.listen(CATALOG_CHANGES_CHANNEL, () => void refresher.refreshNow());
      // What committed between the build's snapshot and the listen was not notified to it.
      await refresher.refreshNow();
    }
    return refresher;
  }

  /** Polls now, so a change this instance just made is served from the next request on. */
  async refreshNow(): Promise<void> {
    await this.task?.runNow();
  }

  /** Once the service listens: the patcher's maps made a step a turn, so the first change does not wait for them. */
  prepareForChanges(): void {
    void this.patcher.rememberAside();
  }

  /** Lets the catalog snapshot's base be written: once the service listens (see CatalogSnapshot.startWriting). */
  startSnapshotWrites(): void {
    this.snapshot?.startWriting();
  }

  /**
   * Re-estimates expected values and re-sorts the current index (after a learning refresh), a step
   * a turn (rerankSteps), so serves go on meanwhile; begun again when a patch dropped it.
   */
  async rerank(): Promise<void> {
    for (let attempt = 0; attempt < RERANK_ATTEMPTS && !this.stopping; attempt++) {
      const steps = rerankSteps(this.current);
      this.reranking = steps;
      let step = steps.next();
      while (!step.done) {
        await new Promise((resolve) => setImmediate(resolve));
        // Dropped by a patch or a rebuild meanwhile: its next step would put stale lists in place.
        if (this.reranking !== steps) break;
        step = steps.next();
      }
      if (step.done) {
        this.reranking = undefined;
        if (step.value) return;
      }
    }
    // A warning, not a debug line: a steady stream of catalog changes that drops every rerank keeps
    // learned CTR and CVR out of the ranking, which an operator should see (at most once a refresh).
    if (!this.stopping) this.options.log.warn({ attempts: RERANK_ATTEMPTS }, 'the rerank was dropped by catalog changes each time; learned rates wait for the next learning refresh');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.reranking = undefined;
    await this.unlisten?.();
    await Promise.all([this.task?.stop(), this.pruneTask?.stop()]);
    // A restart reads the change log from here on.
    this.snapshot?.recordHorizon(this.feed.position);
    // A service stopped before it listened still leaves its base.
    this.snapshot?.startWriting();
    await this.snapshot?.flush();
  }

  private async poll(): Promise<void> {
    const started = Date.now();
    const read = await this.feed.next();
    if (read.kind === 'none') return;
    if (read.kind === 'pruned') {
      this.options.log.warn('catalog changes this instance had not read were pruned; rebuilding the ad index');
      const { index, feed, patcher } = await AdIndexRefresher.build(this.options, this.snapshot);
      [this.current, this.feed, this.patcher] = [index, feed, patcher];
      this.reranking = undefined;
      return;
    }
    const rows = await loadCatalogPart(this.options.db, read.keys);
    this.reranking = undefined;
    const patch = this.patcher.apply(read.keys, rows, read.horizon);
    read.commit();
    this.snapshot?.recordPatch(read.keys, rows, read.horizon);
    const ms = Date.now() - started;
    this.options.onPatched(this.current, patch, read.changes, ms);
    this.options.log.debug(
      { changes: read.changes, removed: patch.removed.length, added: patch.added.length, skipped: patch.skipped, ms },
      'ad index patched',
    );
  }

  private async prune(): Promise<void> {
    // Only its schedule runs this: each run begins an interval after the previous one ended.
    const below = this.pruneBelow;
    if (below === undefined) return;
    const horizon = await readHorizon(this.options.db);
    // Before the change log is pruned below what this instance has read: a restart reads it from here.
    this.snapshot?.recordHorizon(this.feed.position);
    const deleted = await pruneCatalogChanges(this.options.db, below);
    if (deleted > 0) this.options.log.debug({ deleted }, 'catalog changes pruned');
    this.pruneBelow = horizon;
  }

  private static async build(options: AdIndexRefresherOptions, snapshot: CatalogSnapshot | undefined) {
    const started = Date.now();
    const read = await readCatalog(options.db);
    // The creatives' rows walked in a worker thread while the line items are decoded here (creativeGroups.ts).
    const ranges = creativeRangesAside(read.creativeRows, read.lineItemRows);
    const lineItems = lineItemRowsOf(read.lineItemRows);
    const creatives = groupCreativeRows(read.creativeRows, lineItems, await ranges);
    const rows: IndexRows = { tokens: read.tokens, placements: read.placements, lineItems, creatives: [], creativeGroups: creatives.groups };
    snapshot?.replaceBase(read.horizon, rows, { lineItemRows: read.lineItemRows, creativeRows: read.creativeRows, ranges: creatives.ranges });
    await options.beforeBuild;
    const { index, skipped, vectors } = await buildAdIndex(read.horizon, rows, options.build);
    if (snapshot) keepSemantic(snapshot, index, vectors, options.build);
    const patcher = new AdIndexPatcher(index, options.build);
    const ms = Date.now() - started;
    options.onBuilt(index, ms);
    options.log.info({ lineItems: index.lineItems.length, placements: index.placements.size, skipped, ms }, 'ad index built');
    return { index, feed: new CatalogChangeFeed(options.db, read.horizon), patcher };
  }

  /**
   * The index of a snapshot: its base built, its patches applied in order, and a feed that reads
   * the change log from the snapshot's last horizon. Undefined when the database has not reached
   * that horizon (a restored or other database): the snapshot is removed and the catalog read in full.
   */
  private static async restore(options: AdIndexRefresherOptions, snapshot: CatalogSnapshot, loaded: LoadedSnapshot) {
    const started = Date.now();
    const current = await readHorizon(options.db);
    if (BigInt(loaded.position) > BigInt(current)) {
      options.log.warn({ snapshot: loaded.position, database: current }, 'the catalog snapshot is ahead of the database; reading the catalog in full');
      await snapshot.discard();
      return undefined;
    }
    await options.beforeBuild;
    const model = options.build.semanticModel;
    const semantic = model && (await snapshot.loadSemantic(model, loaded.rows.lineItems.length));
    const { index, skipped, vectors } = await buildAdIndex(loaded.baseHorizon, semantic ? { ...loaded.rows, semantic } : loaded.rows, options.build);
    if (!semantic) keepSemantic(snapshot, index, vectors, options.build);
    const patcher = new AdIndexPatcher(index, options.build);
    for (const patch of loaded.patches) patcher.apply(patch.keys, patch.rows, patch.horizon);
    options.onBuilt(index, Date.now() - started);
    const report = { skipped, patches: loaded.patches.length };
    return { index, feed: new CatalogChangeFeed(options.db, loaded.position), patcher, started, report };
  }
}

/**
 * Has the snapshot keep the vectors of the base's rows (the build's, by row) and the clusters the
 * index's semantic lists have when it is written (once any training in a worker is done: a stop
 * waits for it), when any line item has a vector.
 */
function keepSemantic(snapshot: CatalogSnapshot, index: AdIndex, vectors: Array<Float32Array | undefined>, build: IndexBuildDeps): void {
  const model = build.semanticModel;
  if (!model || !vectors.some((vector) => vector !== undefined)) return;
  // Clusters trained in a worker (a first start) are kept once they are there.
  const trained = Promise.all([index.semanticMatrices?.certified.trained(), index.semanticMatrices?.uncertified.trained()]);
  snapshot.replaceSemantic(model, trained, () => {
    const matrices = index.semanticMatrices;
    const certified = matrices?.certified.storedClusters(vectors);
    const uncertified = matrices?.uncertified.storedClusters(vectors);
    return { vectors, clusters: { ...(certified ? { certified } : {}), ...(uncertified ? { uncertified } : {}) } };
  });
}

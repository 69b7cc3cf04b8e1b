import { createHash, randomUUID } from 'node:crypto';
import { appendFile, mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Postgres, SqlExecutor } from '../store/postgres.js';
import { CreativeGroup, type IndexRows } from './adIndex.js';
import { CATALOG_QUERIES, lineItemRowsOf, reviveFlights, type CatalogKeys, type CatalogRows, type LineItemRow } from './catalogQueries.js';
import { decodeSemantic, encodeSemantic, semanticKey, type StoredSemantic } from './semanticSnapshot.js';
import type { SemanticModel } from '../semantic/semanticModel.js';

/**
 * Which catalog rows a snapshot holds: a snapshot written by another version of the catalog
 * queries, for another database or before another migration is not read.
 */
export interface SnapshotStamp {
  /** The snapshot's format and the queries its rows came from. */
  format: string;
  /** The database: its cluster's system identifier and timeline, its name and its OID. */
  database: string;
  /** The Postgres migrations applied. */
  migrations: string;
}

/** A snapshot read back: the catalog at its base horizon, then the patches applied since, in order. */
export interface LoadedSnapshot {
  rows: IndexRows;
  /** The horizon of the full read the rows came from. */
  baseHorizon: string;
  patches: Array<{ keys: CatalogKeys; rows: CatalogRows; horizon: string }>;
  /** The feed's horizon when the last record was written: the change log is read again from here. */
  position: string;
}

interface BaseHeader extends SnapshotStamp {
  id: string;
  horizon: string;
  /** The change log's end when the base was written (changeLogEnd). */
  changeLogEnd: string;
  /**
   * Byte lengths of the sections after the header line: tokens, placements, line items and
   * creatives (both DataRows: see BaseSections), and where each line item's creatives are in theirs.
   */
  sections: number[];
  /** The CRC-32 of each section: a byte changed in place (a bid, a URL) still parses, so parsing proves nothing. */
  checksums: number[];
}

/** A snapshot file whose bytes are not what was written: told in one line, without the bytes themselves. */
class SnapshotDamage extends Error {}

/**
 * What a full read gives the base besides its tokens and placements: the line items' and the
 * creatives' rows as the engine wrote them (loadCatalog) and each line item's range in the creatives' (groupCreativeRows).
 */
export interface BaseSections {
  lineItemRows: Buffer;
  creativeRows: Buffer;
  ranges: number[];
}

/** One line of the log: a patch the index applied (keys and rows), or only the feed's horizon. */
interface LogRecord {
  seq: number;
  horizon: string;
  /** The change log's end when the record was written (changeLogEnd). */
  changeLogEnd: string;
  keys?: CatalogKeys;
  rows?: CatalogRows;
}

const FORMAT = createHash('sha256')
  .update(['adsvc catalog snapshot 6', ...CATALOG_QUERIES].join('\n'))
  .digest('hex')
  .slice(0, 16);
/**
 * How long the log may grow. A log larger than `maxLogShare` of the base (and than
 * `logBytesAlwaysReplayed`, replayed whatever the base's size: a small catalog is cheap to read
 * either way) costs more to replay than it saves: the catalog is read in full instead, which writes
 * a new base. A running instance stops at the same limit, so DATA_DIR (which also holds the event
 * spool) never fills with patches. Mutable only so that a test can reach the limit.
 */
export const snapshotLogLimit = { maxLogShare: 0.5, logBytesAlwaysReplayed: 16 * 2 ** 20 };

function maxLogBytes(baseBytes: number): number {
  return Math.max(baseBytes * snapshotLogLimit.maxLogShare, snapshotLogLimit.logBytesAlwaysReplayed);
}

/**
 * The catalog the ad index was built from, kept in DATA_DIR/catalog-snapshot so that a restart
 * builds the index without reading the whole catalog from Postgres (2.8 s of 6.4 s at 100,000 line
 * items on embedded PGlite). Three files:
 *
 * - `base`: the rows of the last full read (loadCatalog) as the engine wrote them, stamped with
 *   that read's change-log horizon and with what they depend on (SnapshotStamp);
 * - `log`: one line per patch the running index applied since (the keys and the rows reloaded),
 *   and the feed's horizon at each prune and at shutdown;
 * - `semantic`: the vectors of the base's opted-in line items and the semantic lists' clusters
 *   (semanticSnapshot.ts), named after the base and keyed on the word vectors and the embedding
 *   code: a file of another base or key is not read, and the start embeds and clusters as without it.
 *
 * At start the index is built from the base, the log's patches are applied in order, and the
 * change log is read from the last horizon recorded (AdIndexRefresher.start), exactly as a running
 * instance would have: what changed while the service was down is in catalog_changes. Anything
 * that is not provably current makes the start read the whole catalog instead: no snapshot, an
 * unreadable one, another stamp, a change log whose end is behind the one recorded (a restore in
 * place), a horizon the database has not reached, a log too long to be
 * worth replaying, or changes since the horizon already pruned (the feed says so), or bytes that
 * do not match their checksum (every line carries the CRC-32 of its JSON, the base's header those
 * of its sections). A last log line that is torn, or one out of sequence, ends the replay there:
 * the change log covers the rest.
 */
export class CatalogSnapshot {
  private readonly basePath: string;
  private readonly logPath: string;
  private readonly semanticPath: string;
  /** The semantic file, read from load() on when semantic matching is on (loadSemantic checks it). */
  private semanticRead: Promise<Buffer | undefined> | undefined;
  private baseId: string | undefined;
  private seq = 0;
  /** The base's size and the log's, as written so far (appends included). */
  private baseBytes = 0;
  private logBytes = 0;
  private writes: Promise<void> = Promise.resolve();
  /** Resolves once every semantic write asked for is queued (replaceSemantic): flush waits for it too. */
  private semanticQueued: Promise<void> = Promise.resolve();
  /** Set when a write failed: the files were removed and nothing more is written. */
  private broken = false;
  /** Resolved by startWriting: a base waits for it (see there). */
  private allowWrites!: () => void;
  private readonly writesAllowed = new Promise<void>((resolve) => (this.allowWrites = resolve));

  private constructor(
    directory: string,
    private readonly db: Postgres,
    private readonly stamp: SnapshotStamp,
    private readonly log: FastifyBaseLogger,
  ) {
    this.basePath = path.join(directory, 'base');
    this.logPath = path.join(directory, 'log');
    this.semanticPath = path.join(directory, 'semantic');
  }

  /** The snapshot of this DATA_DIR for the database `db` is connected to; undefined when the database cannot say which it is. */
  static async open(directory: string, db: Postgres, log: FastifyBaseLogger): Promise<CatalogSnapshot | undefined> {
    const stamp = await snapshotStamp(db).catch((error: unknown) => {
      log.warn({ err: error }, 'cannot identify the database; the catalog snapshot is off');
      return undefined;
    });
    if (!stamp) return undefined;
    try {
      await mkdir(directory, { recursive: true });
    } catch (error) {
      // A full or read-only disk costs the snapshot (a start that reads the catalog in full), not the start.
      log.warn({ err: error }, 'cannot create the catalog snapshot directory; the catalog snapshot is off');
      return undefined;
    }
    return new CatalogSnapshot(directory, db, stamp, log);
  }

  /**
   * The snapshot, when there is one for this stamp; undefined (and why, logged) when the catalog
   * must be read in full. `read` is the base's read when the caller started it earlier (readBase);
   * `semanticOn`, whether semantic matching is on (the word vectors loaded): the semantic file,
   * which may be a large one kept while it was, is read only then.
   */
  async load(read: Promise<BaseBytes> = readBase(this.basePath), semanticOn = Promise.resolve(true)): Promise<LoadedSnapshot | undefined> {
    let base: BaseBytes;
    try {
      base = await read;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.log.info('no catalog snapshot; reading the catalog in full');
      else this.log.warn({ err: error }, 'cannot read the catalog snapshot; reading the catalog in full');
      return undefined;
    }
    try {
      const { headerLine, sections } = base;
      if (headerLine.startsWith('{"format":')) {
        // Format 1 had no checksums: its header is bare JSON.
        this.log.info('the catalog snapshot is of an older format; reading the catalog in full');
        await this.discard();
        return undefined;
      }
      const header = checkedRecord(headerLine) as BaseHeader | undefined;
      if (!header) throw new SnapshotDamage('the header line does not match its checksum');
      const mismatch = (['format', 'database', 'migrations'] as const).find((key) => header[key] !== this.stamp[key]);
      if (mismatch) {
        this.log.info({ differs: mismatch }, 'the catalog snapshot is of another catalog; reading the catalog in full');
        await this.discard();
        return undefined;
      }
      if (!sections || sections.length !== 5) throw new SnapshotDamage(`the header's sections do not make a file of ${base.bytes} bytes`);
      // 25-50 ms for the 99 MB base of format 4 at 100,000 line items (76 MB now; zlib's CRC-32, measured in process), against 2.8 s for a full read.
      sections.forEach((section, index) => {
        if (crc32(section) !== header.checksums[index]) throw new SnapshotDamage(`section ${index + 1} does not match its checksum`);
      });
      const [tokens, placements, lineItemRows, creatives, creativeRanges] = sections as [Buffer, Buffer, Buffer, Buffer, Buffer];
      const lineItems = lineItemRowsOf(lineItemRows);
      const rows: IndexRows = {
        tokens: JSON.parse(tokens.toString('utf8')) as CatalogRows['tokens'],
        placements: JSON.parse(placements.toString('utf8')) as CatalogRows['placements'],
        lineItems,
        creatives: [],
        // In a buffer of its own (readBase): the other sections are freed once the index is built.
        creativeGroups: creativeGroups(creatives, JSON.parse(creativeRanges.toString('utf8')) as number[], lineItems),
      };
      const log = await this.readLog(header.id, base.bytes);
      if (!log) {
        await this.discard();
        return undefined;
      }
      // A restore in place (pg_restore --clean) keeps the stamp and xids only grow in a cluster, but
      // the change log's sequence goes back to the dump's: what was written after it is not in this catalog.
      const recorded = log.changeLogEnd ?? header.changeLogEnd;
      const end = await changeLogEnd(this.db);
      if (BigInt(recorded) > BigInt(end)) {
        this.log.info({ differs: 'change log', snapshot: recorded, database: end }, 'the catalog snapshot is of another catalog; reading the catalog in full');
        await this.discard();
        return undefined;
      }
      this.baseId = header.id;
      this.baseBytes = base.bytes;
      // Read on the thread pool, while the index waits for the word vectors: loadSemantic checks it.
      this.semanticRead = semanticOn.then((on) => (on ? readFile(this.semanticPath) : undefined));
      this.semanticRead.catch(() => undefined);
      this.seq = log.patches.length + log.horizonsOnly;
      return { rows, baseHorizon: header.horizon, patches: log.patches, position: log.position ?? header.horizon };
    } catch (error) {
      // One line: neither a stack nor a parser's quote of the damaged bytes.
      const reason = error instanceof SnapshotDamage ? error.message : `${error instanceof Error ? error.name : 'error'} while parsing it`;
      this.log.warn({ reason }, 'the catalog snapshot is damaged; reading the catalog in full');
      await this.discard();
      return undefined;
    }
  }

  /**
   * Removes the snapshot now (a rejected one): were the full read that replaces it to fail, or the
   * process to stop before the new base is written, the next start must not find it again.
   */
  async discard(): Promise<void> {
    this.baseId = undefined;
    this.enqueue(() => this.remove());
    await this.flush();
  }

  /**
   * Lets the bases asked for be written: called once the service listens (or stops). Their
   * sections (their encoding and checksums, 0.1-0.2 s at 100,000 line items) are
   * not needed to answer, so a first start does not wait for them. Until then a crash leaves no base
   * (or the discarded one gone): the next start reads the catalog in full, as it would have.
   */
  startWriting(): void {
    this.allowWrites();
  }

  /** Replaces the snapshot with the rows of a full read (in the background, once startWriting is called; see flush). */
  replaceBase(horizon: string, rows: CatalogRows, base: BaseSections): void {
    const id = randomUUID();
    const logHeader = logLine({ base: id });
    this.baseId = id;
    this.seq = 0;
    // What the log's limit is measured against until the base's sections are written: close to their size.
    this.baseBytes = base.lineItemRows.length + base.creativeRows.length;
    this.logBytes = Buffer.byteLength(logHeader);
    this.enqueue(async () => {
      await this.writesAllowed;
      // Each step in its own turn of the event loop: the service answers between them.
      const sections: Buffer[] = [];
      for (const text of [JSON.stringify(rows.tokens), JSON.stringify(rows.placements), JSON.stringify(base.ranges)]) {
        sections.push(Buffer.from(text));
        await new Promise(setImmediate);
      }
      // The line items' and creatives' rows as the read kept them, before the ranges.
      sections.splice(2, 0, base.lineItemRows, base.creativeRows);
      const checksums: number[] = [];
      for (const section of sections) checksums.push(await checksumOf(section));
      const header: BaseHeader = { ...this.stamp, id, horizon, changeLogEnd: await changeLogEnd(this.db), sections: sections.map((section) => section.length), checksums };
      const headerLine = Buffer.from(logLine(header));
      if (this.baseId === id) this.baseBytes = sections.reduce((bytes, section) => bytes + section.length, headerLine.length);
      // The new base's log is empty; a crash between the two renames leaves a log naming the old base, which is not read.
      await this.writeDurably(this.basePath, [headerLine, ...sections]);
      await writeFile(`${this.logPath}.tmp`, logHeader);
      await rename(`${this.logPath}.tmp`, this.logPath);
    });
  }

  /**
   * The loaded base's semantic vectors and clusters, when the file kept them for this base with
   * `rows` line item rows under this model's key; undefined (and why, logged) when the start must
   * embed and cluster them.
   */
  async loadSemantic(model: SemanticModel, rows: number): Promise<StoredSemantic | undefined> {
    const [file, key] = await Promise.all([this.semanticRead?.catch((error: NodeJS.ErrnoException) => error.code ?? 'unreadable'), semanticKey(model)]);
    this.semanticRead = undefined;
    const baseId = this.baseId;
    let stored: StoredSemantic | string;
    if (baseId === undefined || key === undefined) stored = 'there is no base or the word vectors are not from a file';
    else if (!(file instanceof Buffer)) stored = file === 'ENOENT' || file === undefined ? 'there is none' : `it cannot be read (${file})`;
    else {
      try {
        stored = decodeSemantic(file, baseId, key, rows);
      } catch (error) {
        stored = `${error instanceof Error ? error.name : 'error'} while parsing it`;
      }
    }
    if (typeof stored === 'string') {
      this.log.info({ reason: stored }, 'the catalog snapshot keeps no semantic vectors for this base; embedding and clustering the opted-in line items');
      return undefined;
    }
    return stored;
  }

  /**
   * Keeps the base's semantic vectors and clusters (written after the base, in the background, like
   * it), once `trained` resolves: queued only then, so the log's writes meanwhile do not wait for a
   * k-means in a worker (seconds at 100,000 opted-in line items). `source` is called at the write,
   * so the clusters are those of the index as it is by then.
   */
  replaceSemantic(model: SemanticModel, trained: Promise<unknown>, source: () => StoredSemantic): void {
    const id = this.baseId;
    if (id === undefined) return;
    const write = async () => {
      await this.writesAllowed;
      const key = await semanticKey(model);
      // Not if another base replaced this one (or the snapshot was removed) meanwhile.
      if (key === undefined || this.baseId !== id) return;
      const stored = source();
      await this.writeDurably(this.semanticPath, encodeSemantic(id, key, model.dimensions, stored));
    };
    this.semanticQueued = Promise.all([this.semanticQueued, trained]).then(() => this.enqueue(write));
  }

  /** Writes `buffers` to `target` whole or not at all: to a temporary file, synced to disk, then renamed over it. */
  private async writeDurably(target: string, buffers: Buffer[]): Promise<void> {
    const temporary = `${target}.tmp`;
    const file = await open(temporary, 'w');
    try {
      await file.writev(buffers);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  }

  /** Records a patch the index applied: the keys the change log named, the rows reloaded, the feed's new horizon. */
  recordPatch(keys: CatalogKeys, rows: CatalogRows, horizon: string): void {
    this.append({ horizon, keys, rows });
  }

  /** Records the feed's horizon, so a restart reads the change log from here (before it is pruned). */
  recordHorizon(horizon: string): void {
    this.append({ horizon });
  }

  /** Resolves when every write asked for so far is done (or has failed and removed the snapshot). */
  async flush(): Promise<void> {
    await this.semanticQueued;
    await this.writes;
  }

  private append(record: Omit<LogRecord, 'seq' | 'changeLogEnd'>): void {
    if (this.baseId === undefined) return;
    const seq = ++this.seq;
    // Counted with the longest end (a bigint's 19 digits): the line itself is made when it is written.
    this.logBytes += Buffer.byteLength(logLine({ seq, ...record, changeLogEnd: '0'.repeat(19) }));
    if (this.logBytes > maxLogBytes(this.baseBytes)) {
      // Longer than a start would replay: the snapshot goes (the next start reads in full) rather than fill DATA_DIR.
      this.log.info({ bytes: this.logBytes }, 'the catalog snapshot log is long; removing the snapshot');
      this.baseId = undefined;
      this.enqueue(() => this.remove());
      return;
    }
    this.enqueue(async () => appendFile(this.logPath, logLine({ seq, ...record, changeLogEnd: await changeLogEnd(this.db) })));
  }

  /** Removes the snapshot's files, the temporary ones of an interrupted write included. */
  private async remove(): Promise<void> {
    // Every file is tried, whichever fails, before the first failure is told.
    const removals = await Promise.allSettled(
      [this.basePath, this.logPath, this.semanticPath, `${this.basePath}.tmp`, `${this.logPath}.tmp`, `${this.semanticPath}.tmp`].map((file) => rm(file, { force: true })),
    );
    const failed = removals.find((removal) => removal.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private enqueue(write: () => Promise<void>): void {
    this.writes = this.writes.then(async () => {
      if (this.broken) return;
      try {
        await write();
      } catch (error) {
        // A log missing a patch must never be replayed: the snapshot goes, and the next start reads the catalog in full.
        this.broken = true;
        this.log.error({ err: error }, 'cannot write the catalog snapshot; removing it');
        await this.remove().catch(() => undefined);
      }
    });
  }

  /**
   * The log's patches and last horizon for the base `baseId`; undefined when the snapshot must not
   * be used. A torn last line (a write cut short: no line end) or an out-of-sequence line ends the
   * replay there, and what follows is dropped from the file too (and a log of another base is
   * started again), so that later records are never appended behind a line that stops the replay.
   * A whole line that does not match its checksum is damage, not a torn write: the records after it
   * cannot be trusted either, so the snapshot is not used.
   */
  private async readLog(baseId: string, baseBytes: number) {
    const size = await stat(this.logPath).then(
      (info) => info.size,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') this.log.info('the catalog snapshot has no log; reading the change log from the base');
        return 0;
      },
    );
    if (size > maxLogBytes(baseBytes)) {
      this.log.info({ bytes: size }, 'the catalog snapshot log is long; reading the catalog in full');
      return undefined;
    }
    const text = size === 0 ? '' : await readFile(this.logPath, 'utf8');
    // The last element is what follows the last line end: empty, or a torn line.
    const lines = text.split('\n');
    const header = logLine({ base: baseId });
    let kept = header;
    const patches: LoadedSnapshot['patches'] = [];
    let horizonsOnly = 0;
    let position: string | undefined;
    let end: string | undefined;
    // A log of another base (a crash while the base was replaced) holds nothing for this one.
    const records = lines[0] === header.trimEnd() ? lines.slice(1) : [];
    for (const [index, line] of records.entries()) {
      if (index === records.length - 1) break;
      const record = checkedRecord(line) as LogRecord | undefined;
      if (!record) {
        this.log.warn({ line: index + 2 }, 'a catalog snapshot log line does not match its checksum; reading the catalog in full');
        return undefined;
      }
      if (record.seq !== patches.length + horizonsOnly + 1) break;
      if (record.keys && record.rows) {
        reviveFlights(record.rows.lineItems);
        patches.push({ keys: record.keys, rows: record.rows, horizon: record.horizon });
      } else {
        horizonsOnly += 1;
      }
      position = record.horizon;
      end = record.changeLogEnd;
      kept += `${line}\n`;
    }
    this.logBytes = Buffer.byteLength(kept);
    if (kept !== text) {
      this.enqueue(async () => {
        await writeFile(`${this.logPath}.tmp`, kept);
        await rename(`${this.logPath}.tmp`, this.logPath);
      });
    }
    return { patches, horizonsOnly, position, changeLogEnd: end };
  }
}

/**
 * The change log's end: the last value its id sequence handed out. It never goes back while the
 * database lives (pruning deletes rows, not the sequence); a restore sets it back to the dump's.
 */
async function changeLogEnd(db: SqlExecutor): Promise<string> {
  const { rows } = await db.query<{ end: string }>('SELECT last_value::text AS end FROM catalog_changes_id_seq');
  return rows[0]!.end;
}

/** Where the catalog snapshot is kept (DATA_DIR/catalog-snapshot); undefined when CATALOG_SNAPSHOT is off. */
export function catalogSnapshotDirectory(config: Pick<Config, 'DATA_DIR' | 'CATALOG_SNAPSHOT'>): string | undefined {
  return config.CATALOG_SNAPSHOT ? path.join(config.DATA_DIR, 'catalog-snapshot') : undefined;
}

/**
 * Starts reading the base in `directory` now, for CatalogSnapshot.load later: the read is I/O on
 * the thread pool, so it goes on while the start does other work. A read nobody loads fails quietly.
 */
export function readBaseAhead(directory: string): Promise<BaseBytes> {
  const read = readBase(path.join(directory, 'base'));
  read.catch(() => undefined);
  return read;
}

/** The base file: its header line and, when the header names sections that make up the file, each section in a buffer of its own. */
export interface BaseBytes {
  headerLine: string;
  sections: Buffer[] | undefined;
  bytes: number;
}

/** How much of the base is read to find its header line (a few hundred bytes). */
const HEADER_READ_BYTES = 64 * 2 ** 10;

/**
 * Reads the base at `basePath` (rejects as the file system does: ENOENT when there is none). Each
 * section goes into its own buffer, read side by side on the thread pool: the creatives, which the
 * index keeps (CreativeGroup), without the line items' text, which it frees after parsing, and
 * without copying 56 MB out of one buffer (40 ms of a restart at 100,000 line items). It does no
 * more than I/O, so a start can begin it before it needs it (servingRoutes). The header is only
 * looked at for the sections' lengths here; CatalogSnapshot.load checks it.
 */
async function readBase(basePath: string): Promise<BaseBytes> {
  const file = await open(basePath, 'r');
  try {
    const { size } = await file.stat();
    const head = await readAt(file, 0, Math.min(size, HEADER_READ_BYTES));
    const headerEnd = head.indexOf(0x0a);
    if (headerEnd === -1) return { headerLine: head.toString('utf8'), sections: undefined, bytes: size };
    const headerLine = head.toString('utf8', 0, headerEnd);
    const lengths = sectionLengths(headerLine);
    if (!lengths || lengths.reduce((sum, length) => sum + length, headerEnd + 1) !== size) return { headerLine, sections: undefined, bytes: size };
    const starts = lengths.map((_, index) => lengths.slice(0, index).reduce((sum, length) => sum + length, headerEnd + 1));
    const sections = await Promise.all(lengths.map((length, index) => readAt(file, starts[index]!, length)));
    return { headerLine, sections, bytes: size };
  } finally {
    await file.close();
  }
}

/** The section lengths a header line names, or undefined when it names none (a damaged or older header: load says which). */
function sectionLengths(headerLine: string): number[] | undefined {
  try {
    const { sections } = JSON.parse(headerLine.slice(9)) as { sections?: unknown };
    return Array.isArray(sections) && sections.every((length) => Number.isSafeInteger(length) && length >= 0) ? (sections as number[]) : undefined;
  } catch {
    return undefined;
  }
}

/** `length` bytes of `file` from `position`, in a buffer of their own. */
async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  for (let filled = 0; filled < length; ) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) throw new SnapshotDamage('the base ended before its sections');
    filled += bytesRead;
  }
  return buffer;
}

/** How many bytes the base's checksums read between two turns of the event loop (a few ms of it). */
const CHECKSUM_BYTES_BETWEEN_YIELDS = 4 * 2 ** 20;

/** The CRC-32 of `bytes`, read in slices so that the service answers meanwhile. */
async function checksumOf(bytes: Buffer): Promise<number> {
  let checksum = 0;
  for (let start = 0; start < bytes.length; start += CHECKSUM_BYTES_BETWEEN_YIELDS) {
    checksum = crc32(bytes.subarray(start, start + CHECKSUM_BYTES_BETWEEN_YIELDS), checksum);
    await new Promise(setImmediate);
  }
  return checksum;
}

/** Each line item's creatives in `bytes` at the base's `ranges` (groupCreativeRows made them), undefined for a line item without a servable one. */
function creativeGroups(bytes: Buffer, ranges: number[], lineItems: LineItemRow[]): Array<CreativeGroup | undefined> {
  const groups = new Array<CreativeGroup | undefined>(lineItems.length).fill(undefined);
  for (let i = 0; i < ranges.length; i += 3) {
    const [index, start, end] = [ranges[i]!, ranges[i + 1]!, ranges[i + 2]!];
    const lineItem = lineItems[index];
    if (!lineItem || groups[index] || !(start < end && end <= bytes.length)) throw new SnapshotDamage('the creatives\' offsets do not match the line items');
    groups[index] = new CreativeGroup(bytes, start, end, lineItem.brand_name);
  }
  return groups;
}

/** A line of the snapshot's files: the CRC-32 of the JSON text (8 hex digits), a space, the JSON text. */
function logLine(record: object): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** The record of a line written by logLine; undefined when its bytes are not the ones written. */
function checkedRecord(line: string): unknown {
  const json = line.slice(9);
  if (line[8] !== ' ' || line.slice(0, 8) !== crc32(json).toString(16).padStart(8, '0')) return undefined;
  return JSON.parse(json) as unknown;
}

/**
 * What a snapshot's rows depend on besides the catalog itself. The cluster's system identifier and
 * timeline tell one database (and one history of it) from another, which a copy or a point-in-time
 * restore would not keep apart by name alone. The database's OID tells a database dropped and
 * created again under the same name (a pg_restore into a new database, say) from the old one: the
 * cluster's transaction ids go on growing, so the snapshot would not look ahead of it. Embedded
 * PGlite's database is always OID 5, but a new DATA_DIR/postgres is a new cluster (initdb), with a
 * system identifier of its own.
 */
export async function snapshotStamp(db: SqlExecutor): Promise<SnapshotStamp> {
  const { rows } = await db.query<{ database: string; migrations: string }>(
    `SELECT s.system_identifier::text || '/' || c.timeline_id::text || '/' || current_database()
              || '/' || (SELECT oid FROM pg_database WHERE datname = current_database())::text AS database,
            (SELECT string_agg(name, ',' ORDER BY name) FROM schema_migrations) AS migrations
     FROM pg_control_system() s CROSS JOIN pg_control_checkpoint() c`,
  );
  const { database, migrations } = rows[0]!;
  return { format: FORMAT, database, migrations: createHash('sha256').update(migrations).digest('hex').slice(0, 16) };
}

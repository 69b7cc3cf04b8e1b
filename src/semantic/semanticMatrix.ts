import { scanKernel, type ScanKernel } from './int8ScanKernel.js';
import { probeKernel, type ProbeKernel } from './probeKernel.js';
import { probedScanKernel, type ProbedScanKernel } from './probedScanKernel.js';
import { clusterVectors } from './semanticClusters.js';

/** What a row is made of: a line item's unit vector and the similarity a serve must reach, and its expected value (the rank order). */
interface SemanticRow {
  semantic: { vector: Float32Array; minSimilarity: number } | null;
  expectedValue: number;
}

/**
 * A list's clusters as the catalog snapshot keeps them (semanticSnapshot.ts): the unit centres, how
 * many rows they were trained on, and each line item row's cluster (-1: not in the list).
 */
export interface StoredClusters {
  centres: Float32Array[];
  trainedRows: number;
  clusterOfRow: Int32Array;
}

/**
 * Trains a list's clusters elsewhere (a worker thread, clusterWorker.ts) as train() does here: the
 * same k-means with the same kernel, so the same clusters, while serving goes on.
 */
export type ClusterTrainer = (vectors: Float32Array[]) => Promise<{ centres: Float32Array[]; clusterOf: Int32Array }>;

/**
 * Lists of at least this many opted-in line items are searched through clusters (approximate, see
 * below); smaller ones are compared whole, exactly: a full scan of 2,000 rows costs about 18 us.
 */
export const CLUSTERED_FROM_ROWS = 2048;
/** Clusters whose members a serve scans: the ones whose centres are most similar to the conversation. */
const PROBED_CLUSTERS = 4;
/**
 * No cluster is probed when even the nearest centre's similarity to the conversation is this far
 * below the list's lowest min_similarity: its members are then very rarely similar enough. Measured
 * (bench/README.md, "Semantic: session 27"), on 11 catalogs of 10,000 line items against probing
 * always: 0.13 found every ad, 0.10 lost 1 of 967, 0.07 1-3 %; it skips the scans of most
 * conversations nothing is similar to.
 */
const PROBE_FLOOR_BELOW_THRESHOLD = 0.13;

/**
 * Ranks of a clustered list copied in rank order (one row per distinct vector, as the rows are):
 * scanTopRanks() bounds the similarity of every one of them in one contiguous scan, without the
 * centres. A serve whose keyword winner only these ranks could beat skips the centres and the probed
 * scans when none of them can. Measured cold on the serve-semantic bench's bodies (bench/README.md,
 * "Semantic: session 42"): up to 64 ranks the scan cost 0.77 us against 1.86 for the centres and the
 * probed scan; at 65-256 ranks 1.11 against 1.27, too little to pay for the serves whose test fails.
 */
export const TOP_RANKS = 64;

/**
 * A change that moves more rows than this (leaving and joining, in one list) is laid out again by
 * fill(): each moved row is a memmove of the rows after it (a few ms at 100,000 rows).
 */
const MOVED_ROWS_AT_MOST = 16;

/** Rows reserved beyond those asked for: 1/64 more (0.3 MB at 155,000 rows). */
const ROW_HEADROOM_SHIFT = 6;

const ROW_LEVELS = 127;
const PAGE_BYTES = 65536;
/** Covers float32 rounding in the kernel and in the stored thresholds (errors near 1e-7). */
const ROUNDING_SLACK = 1e-5;

/** A row quantized once per line item vector: int8 components (zero-padded to whole blocks) and their scale. */
const quantizedRows = new WeakMap<Float32Array, { components: Int8Array; scale: number; key: number }>();

/**
 * Opted-in line items as one contiguous int8 matrix in a WebAssembly memory, scanned per serve in
 * one SIMD pass (int8ScanKernel.ts) for the rows that may reach their min_similarity.
 *
 * Rows are known by their rank: their position in the ranked list fill() was given (best expected
 * value first), so that a serve scans only the ranks that could still beat its best ad. In a
 * clustered list a row is a distinct vector, ranked as its first line item (see sameVector).
 *
 * Small lists (below CLUSTERED_FROM_ROWS) are scanned whole, and the scan is a filter, never the
 * judge: a row's quantization error is bounded (below), so a row the scan drops cannot reach its
 * min_similarity; every row it keeps is judged by the exact float similarity. What matches is
 * exactly what comparing every line item matches.
 *
 * Larger lists are an inverted-file index: the rows are grouped into about sqrt(n)/2 clusters by
 * k-means (semanticClusters.ts), and a serve compares the conversation with the clusters' centres,
 * then scans only the members of the PROBED_CLUSTERS nearest: a few hundred rows of 10,000, not all.
 * That is an approximation: a line item similar enough to the conversation whose cluster's centre
 * is not among the nearest is missed (its recall is measured in bench/README.md).
 *
 * The bound, for a unit row vector x = s_x (xq + e), |e| <= 1/2 per component (s_x = max|x| / 127)
 * and the conversation q = s_q (qq + f), |f| <= 1/2 (s_q = max|q| / 32767), with D dimensions:
 *   x.q <= s_x (s_q xq.qq + |q|_1 / 2) + s_q (sqrt(D) + D / 254) / 2
 * which is the kernel's  scales[r] x (a x dot + b) + c.
 */
export class SemanticMatrix<Entry extends SemanticRow> {
  /** The rows' line items, in the order fill() or update() was given (rank order). */
  entries: Entry[] = [];
  /**
   * By rank, as fill() or update() was given them (a change to a few line items is patched in by
   * update(), a new order or new expected values laid out again by fill()): the line items' float vectors (the line items' own, not copies:
   * a packed copy cost 400 bytes a row, about 60 MB at 100,000 opted-in line items, for no measured
   * gain; bench/README.md, "Semantic: session 33"), their min_similarity and their expected value. A
   * serve's walk over the candidates judges them from these and reads a line item (a few cold cache
   * lines: the entry, its spend) only for a candidate similar enough to take the lead.
   */
  vectors: Float32Array[] = [];
  minSimilarities = new Float64Array(0);
  expectedValues = new Float64Array(0);
  /**
   * By rank: the next rank whose line item has the same vector (bit for bit) in the same cluster, or
   * -1. A clustered list has one row per distinct vector of a cluster, ranked as its first line item
   * and kept by the scan when the lowest min_similarity of its line items may be reached; the walk
   * goes from a candidate row to each of its line items. Line items whose keywords and creatives
   * say the same thing share a vector (4,422 distinct of the serve bench's 10,000), so a scan reads
   * about half the rows (bench/README.md, "Semantic: session 35"). A list scanned whole has a row
   * per line item (its rank is its row), every entry -1.
   */
  sameVector = new Int32Array(0);
  /** Rows the last scans read (centres included): what a serve cost. */
  scannedRows = 0;
  private readonly dimensions: number;
  private readonly blocks: number;
  private readonly kernel: ScanKernel;
  /** Quantizes the conversation and picks the probes, in the kernel's memory (probeKernel.ts). */
  private readonly probeKernel: ProbeKernel;
  /** Scans a chunk of ranks of every probed cluster (probedScanKernel.ts). */
  private readonly probedScan: ProbedScanKernel;
  private readonly clusteredFromRows: number;
  /**
   * Where each area is in the kernel's memory. The rows (starts, ranks, scales, thresholds, matrix)
   * have a spare copy of their areas: reorder() lays a new rank order out there while serves scan
   * these, and its commit swaps the two.
   */
  private layout = { rowCapacity: -1, centreCapacity: -1, centresWritten: 0, conversation: 0, query: 0, prepared: 0, probes: 0, runs: 0, starts: 0, ranks: 0, scales: 0, thresholds: 0, out: 0, bounds: 0, centreScales: 0, centreThresholds: 0, centreMatrix: 0, matrix: 0, spare: emptyBank(), topScales: 0, topThresholds: 0, topMatrix: 0 };
  /** Counts the layouts (fill, update, a reorder's commit): a reorder laid out over an older one is not committed. */
  private layoutVersion = 0;
  private views = emptyViews();
  /** Unit centres and each vector's cluster; undefined when the list is scanned whole. */
  private clustering: { centres: Float32Array[]; clusterOf: WeakMap<Float32Array, number>; trainedRows: number } | undefined = undefined;
  /** The rank of each row of the top ranks' copy (TOP_RANKS), and how many of its rows rank before each rank up to TOP_RANKS. */
  private readonly topRows = new Int32Array(TOP_RANKS);
  private readonly topRowsBefore = new Int32Array(TOP_RANKS + 1);
  /** How many clusters the prepared conversation probes: the first of views.probes (in the kernel's memory, written by probeKernel). */
  private probeCount = 0;
  /** Candidates of a clustered scan, merged from the probed clusters into rank order. */
  private mergedRanks = new Int32Array(0);
  private mergedBounds = new Float32Array(0);
  /** The prepared conversation's quantization: what the kernel's bound needs besides the rows (one object, rewritten per serve). */
  private readonly prepared = { ready: false, queryScale: 0, halfSumOfMagnitudes: 0, queryError: 0 };
  private readonly heads = new Int32Array(PROBED_CLUSTERS);
  /** The nearest centre's similarity below which nothing is probed (see PROBE_FLOOR_BELOW_THRESHOLD). */
  private probeFloor = -Infinity;
  private readonly trainer: ClusterTrainer | undefined;
  /** A training by the trainer under way: until it ends the list keeps its clusters, or is scanned whole when it has none. */
  private training: Promise<void> | undefined;
  /** The trainer failed: it is not asked again (no retry at every change), and the list keeps its clusters or is scanned whole. */
  private trainerFailed = false;

  /**
   * With a trainer, a list that needs clusters (again) is not clustered by fill() itself: the
   * trainer trains them while the list is scanned whole (exact: every line item similar enough is
   * found, at a full scan's cost a serve) or with the clusters it had, and the list is laid out
   * again with the new ones when they come; a trainer that fails is not asked again. A first
   * start at 100,000 opted-in line items then does not wait 7 s for the k-means (bench/README.md,
   * "Semantic at 100,000 line items: session 34").
   */
  constructor(dimensions: number, clusteredFromRows = CLUSTERED_FROM_ROWS, trainer?: ClusterTrainer) {
    this.dimensions = dimensions;
    this.blocks = Math.ceil(dimensions / 16);
    this.kernel = scanKernel(this.blocks);
    this.probeKernel = probeKernel(this.kernel.memory, dimensions, PROBED_CLUSTERS);
    this.probedScan = probedScanKernel(this.kernel.memory, this.blocks, PROBED_CLUSTERS);
    this.clusteredFromRows = clusteredFromRows;
    this.trainer = trainer;
  }

  /** Resolves once no training by the trainer is under way (at once without one). */
  async trained(): Promise<void> {
    while (this.training !== undefined) await this.training;
  }

  /**
   * k-means over these vectors (semanticClusters.ts), each vector assigned by this matrix's kernel:
   * how a list is clustered, here or by a trainer. Overwrites the kernel's centres.
   */
  train(vectors: Float32Array[]): { centres: Float32Array[]; clusterOf: Int32Array } {
    return clusterVectors(vectors, (centres) => {
      this.reserve(vectors.length, centres.length);
      this.writeCentres(centres);
      return Int32Array.from(vectors, this.nearestCentre);
    });
  }

  /**
   * Lays out `entries` (rank order) as fill() would, when they are the rows laid out now less
   * `removed` and plus `added`, every other row in the same order: a catalog change. The rows
   * after each one that leaves or joins move by one row (a memmove), instead of every row being
   * written again: fill() touches every line item's entry, vector and quantized row, 200-350 ms of
   * a change at 100,000 opted-in line items (bench/README.md, "Semantic at 100,000 line items:
   * session 34"). Falls back to fill() when the change is large, the clusters would be trained
   * again or the room is short, so the layout is always fill()'s for the same clustering.
   */
  update(entries: Entry[], removed: ReadonlySet<Entry>, added: ReadonlySet<Entry>): void {
    this.layoutVersion += 1;
    const old = this.entries;
    const clusters = this.clustering?.centres.length ?? 1;
    const clusteredAfter = entries.length >= this.clusteredFromRows;
    const trained = this.clustering?.trainedRows;
    // While a trainer trains, or once it failed, fill() keeps the clusters there are (or none).
    const pending = this.training !== undefined || this.trainerFailed;
    const sameClusters =
      trained === undefined ? !clusteredAfter || pending : clusteredAfter && (pending || (entries.length <= trained * 2 && entries.length * 2 >= trained));
    if (!sameClusters || entries.length > this.layout.rowCapacity || (this.clustering !== undefined && this.layout.centresWritten !== clusters)) {
      this.fill(entries);
      return;
    }
    // Each old rank's new one (-1: left), and the new ranks that joined, from one walk of both lists.
    const newRankOf = new Int32Array(old.length);
    const joined: number[] = [];
    let left = 0;
    for (let i = 0, j = 0; i < old.length || j < entries.length; ) {
      if (i < old.length && j < entries.length && old[i] === entries[j]) newRankOf[i++] = j++;
      else if (i < old.length && removed.has(old[i]!)) {
        newRankOf[i++] = -1;
        left += 1;
      } else if (j < entries.length && added.has(entries[j]!)) joined.push(j++);
      else {
        // Not this list with rows taken out and put in: laid out again.
        this.fill(entries);
        return;
      }
      if (left + joined.length > MOVED_ROWS_AT_MOST) {
        this.fill(entries);
        return;
      }
    }
    this.prepared.ready = false;
    const width = this.blocks * 16;
    const { matrix, scales, thresholds, ranks: rankOfRow } = this.views;
    const starts = new Int32Array(this.kernel.memory.buffer, this.layout.starts, clusters + 1);
    let rows = starts[clusters]!;
    // By rank: the kept rows' values moved to their new ranks, the joined ones' read from their line items.
    const vectors = new Array<Float32Array>(entries.length);
    const minSimilarities = new Float64Array(Math.max(entries.length, this.minSimilarities.length));
    const expectedValues = new Float64Array(minSimilarities.length);
    for (let i = 0; i < old.length; i++) {
      const rank = newRankOf[i]!;
      if (rank < 0) continue;
      vectors[rank] = this.vectors[i]!;
      minSimilarities[rank] = this.minSimilarities[i]!;
      expectedValues[rank] = this.expectedValues[i]!;
    }
    for (const rank of joined) {
      const entry = entries[rank]!;
      vectors[rank] = entry.semantic!.vector;
      minSimilarities[rank] = entry.semantic!.minSimilarity;
      expectedValues[rank] = entry.expectedValue;
    }
    // A row is a distinct vector (sameVector). Each row a leaving or joining line item is of is
    // taken out and put in again with its line items as they are now; the other rows keep theirs.
    const oldSame = this.sameVector;
    const headOf = new Int32Array(old.length).fill(-1);
    for (let rank = 0; rank < old.length; rank++) if (headOf[rank]! < 0) for (let member = rank; member >= 0; member = oldSame[member]!) headOf[member] = rank;
    const touched = new Uint8Array(old.length);
    const regrouped = new Map<number, number[]>();
    const regroup = (head: number) => {
      if (regrouped.has(head)) return;
      touched[head] = 1;
      const members: number[] = [];
      for (let member = head; member >= 0; member = oldSame[member]!) if (newRankOf[member]! >= 0) members.push(newRankOf[member]!);
      regrouped.set(head, members);
    };
    for (let i = 0; i < old.length; i++) if (newRankOf[i] === -1) regroup(headOf[i]!);
    // A joining line item joins the row of its vector in its cluster (as fill groups them), else a new row of its own or with others joining.
    const groups: number[][] = [];
    for (const rank of joined) {
      const vector = vectors[rank]!;
      let group: number[] | undefined;
      if (this.clustering !== undefined) {
        const cluster = this.clusterOf(vector);
        for (let row = starts[cluster]!; row < starts[cluster + 1]! && group === undefined; row++) {
          const head = rankOfRow[row]!;
          if (!sameComponents(this.vectors[head]!, vector)) continue;
          regroup(head);
          group = regrouped.get(head)!;
        }
        group ??= groups.find((members) => this.clusterOf(vectors[members[0]!]!) === cluster && sameComponents(vectors[members[0]!]!, vector));
      }
      if (group === undefined) groups.push([rank]);
      else group.push(rank);
    }
    for (const members of regrouped.values()) if (members.length > 0) groups.push(members);
    // Leaving, last row first: the rows after each move up by one, and the clusters after it start one earlier.
    const leaving: number[] = [];
    for (let row = 0; row < rows; row++) if (touched[rankOfRow[row]!] === 1) leaving.push(row);
    for (let k = leaving.length - 1; k >= 0; k--) {
      const row = leaving[k]!;
      matrix.copyWithin(row * width, (row + 1) * width, rows * width);
      for (const perRow of [rankOfRow, scales, thresholds]) perRow.copyWithin(row, row + 1, rows);
      rows -= 1;
      for (let c = clusterOfRow(starts, clusters, row) + 1; c <= clusters; c++) starts[c]! -= 1;
    }
    for (let row = 0; row < rows; row++) rankOfRow[row] = newRankOf[rankOfRow[row]!]!;
    // By rank, the next with the same vector: the untouched rows' chains renumbered, the others' from their members.
    const sameVector = new Int32Array(entries.length).fill(-1);
    for (let i = 0; i < old.length; i++) if (newRankOf[i]! >= 0 && touched[headOf[i]!] === 0 && oldSame[i]! >= 0) sameVector[newRankOf[i]!] = newRankOf[oldSame[i]!]!;
    // Joining: each row at its rank (its first line item's) within its cluster (as fill's counting sort puts it), the rows after it one down.
    for (const members of groups) {
      members.sort((a, b) => a - b);
      let threshold = Infinity;
      for (let m = 0; m < members.length; m++) {
        sameVector[members[m]!] = m + 1 < members.length ? members[m + 1]! : -1;
        threshold = Math.min(threshold, minSimilarities[members[m]!]!);
      }
      const rank = members[0]!;
      const vector = vectors[rank]!;
      const cluster = this.clusterOf(vector);
      let low = starts[cluster]!;
      let high = starts[cluster + 1]!;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (rankOfRow[middle]! < rank) low = middle + 1;
        else high = middle;
      }
      matrix.copyWithin((low + 1) * width, low * width, rows * width);
      for (const perRow of [rankOfRow, scales, thresholds]) perRow.copyWithin(low + 1, low, rows);
      rows += 1;
      for (let c = cluster + 1; c <= clusters; c++) starts[c]! += 1;
      const quantized = this.quantized(vector);
      matrix.set(quantized.components, low * width);
      scales[low] = quantized.scale;
      thresholds[low] = threshold;
      rankOfRow[low] = rank;
    }
    this.sameVector = sameVector;
    // A copy: the lists are patched in place (adIndexPatcher.ts), and update() compares the rows laid out with the new list.
    this.entries = entries.slice();
    this.vectors = vectors;
    this.minSimilarities = minSimilarities;
    this.expectedValues = expectedValues;
    let lowestThreshold = Infinity;
    for (let rank = 0; rank < entries.length; rank++) lowestThreshold = Math.min(lowestThreshold, minSimilarities[rank]!);
    this.probeFloor = lowestThreshold - PROBE_FLOOR_BELOW_THRESHOLD;
    this.writeTopRanks();
  }

  /**
   * The clusters, with the cluster of each of these vectors (a line item row's, undefined for a row
   * without one), for the catalog snapshot; undefined when the list is scanned whole.
   */
  storedClusters(vectorsByRow: ReadonlyArray<Float32Array | undefined>): StoredClusters | undefined {
    const clustering = this.clustering;
    if (clustering === undefined) return undefined;
    const clusterOfRow = Int32Array.from(vectorsByRow, (vector) => (vector === undefined ? -1 : (clustering.clusterOf.get(vector) ?? -1)));
    return { centres: clustering.centres, trainedRows: clustering.trainedRows, clusterOfRow };
  }

  /**
   * Takes clusters the catalog snapshot kept (storedClusters), the rows' vectors by the same rows,
   * for the next fill: a start then neither clusters again (7 s at 100,000 opted-in line items)
   * nor looks for each row's nearest centre. They are trained again, as ever, when the list has
   * doubled or halved since.
   */
  restoreClusters(stored: StoredClusters, vectorsByRow: ReadonlyArray<Float32Array | undefined>): void {
    const clusterOf = new WeakMap<Float32Array, number>();
    stored.clusterOfRow.forEach((cluster, row) => {
      const vector = vectorsByRow[row];
      if (vector !== undefined && cluster >= 0) clusterOf.set(vector, cluster);
    });
    this.clustering = { centres: stored.centres, clusterOf, trainedRows: stored.trainedRows };
    // Written by the next fill: whatever centres the kernel's memory holds are not these.
    this.layout.centresWritten = 0;
  }

  /** Whether scans read only the probed clusters (an approximation), rather than every row. */
  get clustered(): boolean {
    return this.clustering !== undefined;
  }

  /** Lays out these line items (each with a semantic target, in rank order) as rows. */
  fill(entries: Entry[]): void {
    this.layoutVersion += 1;
    this.entries = entries.slice();
    this.prepared.ready = false;
    const clusterOfRank = this.assignClusters(entries);
    const clusters = this.clustering?.centres.length ?? 1;
    this.reserve(entries.length, clusters);
    this.vectors = entries.map((entry) => entry.semantic!.vector);
    if (this.expectedValues.length < entries.length) {
      this.minSimilarities = new Float64Array(entries.length);
      this.expectedValues = new Float64Array(entries.length);
    }
    entries.forEach((entry, rank) => {
      this.minSimilarities[rank] = entry.semantic!.minSimilarity;
      this.expectedValues[rank] = entry.expectedValue;
    });
    const { heads, rows, thresholds: lowestOfRow } = this.linkSameVectors(clusterOfRank);
    // Counting sort by cluster; ranks ascend within each cluster because they are visited in order.
    const starts = new Int32Array(clusters + 1);
    for (const rank of heads) starts[(clusterOfRank?.[rank] ?? 0) + 1]! += 1;
    for (let c = 0; c < clusters; c++) starts[c + 1]! += starts[c]!;
    const next = starts.slice(0, clusters);
    const width = this.blocks * 16;
    // Per row of the matrix, its rank (its first line item's); rows are grouped by cluster and ranked within each.
    const { matrix, scales, thresholds, ranks: rankOfRow } = this.views;
    for (const rank of heads) {
      const row = next[clusterOfRank?.[rank] ?? 0]!++;
      rankOfRow[row] = rank;
      const quantized = rows[rank]!;
      matrix.set(quantized.components, row * width);
      scales[row] = quantized.scale;
      thresholds[row] = lowestOfRow[rank]!;
    }
    // Cluster c's rows are [starts[c], starts[c + 1]), in the kernel's memory for the probe and scan kernels.
    new Int32Array(this.kernel.memory.buffer, this.layout.starts, clusters + 1).set(starts);
    let lowestThreshold = Infinity;
    for (const entry of entries) lowestThreshold = Math.min(lowestThreshold, entry.semantic!.minSimilarity);
    this.probeFloor = lowestThreshold - PROBE_FLOOR_BELOW_THRESHOLD;
    if (this.clustering !== undefined) this.writeCentres(this.clustering.centres);
    this.writeTopRanks();
  }

  /**
   * Links each rank to the next with the same vector in the same cluster (sameVector) and returns the
   * ranks that start a row, ascending: the first of each distinct vector of a cluster when the list
   * is clustered, else every rank (a row of a list scanned whole is its rank); with each rank's
   * quantized row and, at a row's first rank, the lowest min_similarity of its line items.
   */
  private linkSameVectors(clusterOfRank: Int32Array | undefined): { heads: Int32Array; rows: Array<{ components: Int8Array; scale: number }>; thresholds: Float64Array } {
    const vectors = this.vectors;
    const count = vectors.length;
    const sameVector = (this.sameVector = new Int32Array(count).fill(-1));
    // By rank: its quantized row, and for a row's first rank the lowest min_similarity of its line items.
    const rows = vectors.map((vector) => this.quantized(vector));
    const thresholds = this.minSimilarities.slice(0, count);
    if (clusterOfRank === undefined) return { heads: Int32Array.from(vectors, (_, rank) => rank), rows, thresholds };
    const heads = new Int32Array(count);
    let headCount = 0;
    // Open addressing in typed arrays (a Map of lists cost 60 ms more a fill at 100,000 rows): per slot,
    // a distinct vector of a cluster: its first rank, its last rank + 1, and the hash of its components and cluster.
    const size = 2 ** Math.ceil(Math.log2(count * 2 + 2));
    const firsts = new Int32Array(size);
    const lasts = new Int32Array(size);
    const keys = new Int32Array(size);
    for (let rank = 0; rank < count; rank++) {
      const vector = vectors[rank]!;
      const cluster: number = clusterOfRank[rank]!;
      const key: number = rows[rank]!.key ^ Math.imul(cluster + 1, 0x9e3779b1);
      let slot: number = key & (size - 1);
      for (; lasts[slot] !== 0; slot = (slot + 1) & (size - 1)) {
        const last = lasts[slot]! - 1;
        if (keys[slot] === key && clusterOfRank[last] === cluster && sameComponents(vectors[last]!, vector)) break;
      }
      if (lasts[slot] === 0) {
        keys[slot] = key;
        firsts[slot] = rank;
        heads[headCount++] = rank;
      } else {
        sameVector[lasts[slot]! - 1] = rank;
        const first = firsts[slot]!;
        thresholds[first] = Math.min(thresholds[first]!, thresholds[rank]!);
      }
      lasts[slot] = rank + 1;
    }
    return { heads: heads.subarray(0, headCount), rows, thresholds };
  }

  /**
   * Quantizes the conversation for the scans that follow (until the next prepare or fill), and
   * picks the clusters to probe; false when there is nothing to scan: the zero vector, which nothing
   * can be similar to, or (clustered) no centre near enough to probe.
   */
  prepare(conversation: Float32Array): boolean {
    const clusters = this.clustering === undefined ? 0 : this.clustering.centres.length;
    const count = this.quantizeQuery(conversation, clusters);
    if (count < 0) return false;
    this.scannedRows = clusters;
    if (this.clustering === undefined) return true;
    this.probeCount = count;
    return count > 0;
  }

  /**
   * Scans the rows ranked [from, to) (of the probed clusters, when clustered) against the prepared
   * conversation; returns how many may reach the lowest min_similarity of their line items (a row's
   * others, by sameVector, may rank after `to`). Their ranks, ascending, are
   * candidateRows()[0..count), and an upper bound of each one's similarity is candidateBounds() at
   * the same position. Valid until the next scan or fill.
   */
  scan(from: number, to: number): number {
    const end = Math.min(to, this.entries.length);
    if (from >= end || !this.prepared.ready) return 0;
    if (this.clustering === undefined) {
      const count = this.scanRows(from, end);
      // The kernel numbers rows from the start of the range it was given; unclustered, a row is its rank.
      const rows = this.views.out;
      if (from > 0) for (let i = 0; i < count; i++) rows[i]! += from;
      return count;
    }
    const { layout } = this;
    const { queryScale, halfSumOfMagnitudes, queryError } = this.prepared;
    const count = this.probedScan.scan(
      layout.probes, this.probeCount, layout.starts, layout.ranks, from, end, layout.matrix, layout.query, layout.scales, layout.thresholds, layout.out, layout.bounds, layout.runs,
      queryScale, halfSumOfMagnitudes, queryError,
    );
    this.scannedRows += this.views.runs[PROBED_CLUSTERS]!;
    this.mergeRuns(count);
    return count;
  }

  candidateRows(): Int32Array {
    return this.clustering === undefined ? this.views.out : this.mergedRanks;
  }

  candidateBounds(): Float32Array {
    return this.clustering === undefined ? this.views.bounds : this.mergedBounds;
  }

  /**
   * For a clustered list, bounds the similarity of the conversation to every line item ranked
   * before `ranks` (at most TOP_RANKS), whatever its cluster: returns how many rows (distinct
   * vectors, each ranked as its first line item) may reach the lowest min_similarity of their line
   * items, their ranks ascending in topCandidateRanks() and an upper bound of each one's similarity
   * in topCandidateBounds() (the scan kernel's, as scan() gives). -1 when the list is scanned whole,
   * `ranks` is past the copy, or the conversation is the zero vector. Leaves nothing prepared for
   * scan(): prepare() first. Valid until the next scan or fill.
   */
  scanTopRanks(conversation: Float32Array, ranks: number): number {
    if (this.clustering === undefined || ranks > TOP_RANKS || ranks > this.entries.length) return -1;
    if (this.quantizeQuery(conversation, 0) < 0) return -1;
    const { layout } = this;
    const { queryScale, halfSumOfMagnitudes, queryError } = this.prepared;
    this.prepared.ready = false;
    const rows = this.topRowsBefore[ranks]!;
    this.scannedRows = rows;
    const count = this.kernel.scan(layout.topMatrix, layout.query, rows, layout.topScales, layout.topThresholds, layout.out, layout.bounds, queryScale, halfSumOfMagnitudes, queryError);
    const out = this.views.out;
    for (let i = 0; i < count; i++) out[i] = this.topRows[out[i]!]!;
    return count;
  }

  topCandidateRanks(): Int32Array {
    return this.views.out;
  }

  topCandidateBounds(): Float32Array {
    return this.views.bounds;
  }

  /**
   * Copies the rows of the first TOP_RANKS ranks in rank order, each a distinct vector of a cluster
   * ranked as its first line item with the lowest min_similarity of its line items (as the rows
   * are): after every layout (fill, update, a reorder's commit), a few hundred rows.
   */
  private writeTopRanks(): void {
    if (this.clustering === undefined) return;
    const { sameVector, minSimilarities } = this;
    const count = Math.min(TOP_RANKS, this.entries.length);
    const { topScales, topThresholds, topMatrix } = this.views;
    const width = this.blocks * 16;
    const member = new Uint8Array(count);
    let rows = 0;
    for (let rank = 0; rank < count; rank++) {
      this.topRowsBefore[rank] = rows;
      if (member[rank] === 1) continue;
      let threshold = Infinity;
      for (let next = rank; next >= 0; next = sameVector[next]!) {
        threshold = Math.min(threshold, minSimilarities[next]!);
        if (next < count) member[next] = 1;
      }
      const quantized = this.quantized(this.vectors[rank]!);
      topMatrix.set(quantized.components, rows * width);
      topScales[rows] = quantized.scale;
      topThresholds[rows] = threshold;
      this.topRows[rows++] = rank;
    }
    this.topRowsBefore[count] = rows;
  }

  /** Bytes of WebAssembly memory this matrix holds. */
  get byteLength(): number {
    return this.kernel.memory.buffer.byteLength;
  }

  /** Scans matrix rows [first, last) of an unclustered matrix, writing the kept ones (numbered from `first`) to out and bounds. */
  private scanRows(first: number, last: number): number {
    const { layout } = this;
    const { queryScale, halfSumOfMagnitudes, queryError } = this.prepared;
    const width = this.blocks * 16;
    this.scannedRows += last - first;
    return this.kernel.scan(layout.matrix + first * width, layout.query, last - first, layout.scales + first * 4, layout.thresholds + first * 4, layout.out, layout.bounds, queryScale, halfSumOfMagnitudes, queryError);
  }

  /** Merges the probed clusters' candidates (probe p's are [runs[p - 1], runs[p]) of out, each ascending by rank) into one ascending list. */
  private mergeRuns(total: number): void {
    const { heads } = this;
    if (this.mergedRanks.length < total) {
      this.mergedRanks = new Int32Array(this.views.out.length);
      this.mergedBounds = new Float32Array(this.views.out.length);
    }
    const { out, bounds, runs } = this.views;
    const probes = this.probeCount;
    for (let p = 0; p < probes; p++) heads[p] = p === 0 ? 0 : runs[p - 1]!;
    for (let i = 0; i < total; i++) {
      let pick = -1;
      for (let p = 0; p < probes; p++) {
        if (heads[p]! < runs[p]! && (pick < 0 || out[heads[p]!]! < out[heads[pick]!]!)) pick = p;
      }
      this.mergedRanks[i] = out[heads[pick]!]!;
      this.mergedBounds[i] = bounds[heads[pick]!]!;
      heads[pick]! += 1;
    }
  }

  /** Each rank's cluster, clustering (again) when the list has grown or shrunk a lot; undefined when the list is scanned whole. */
  private assignClusters(entries: Entry[]): Int32Array | undefined {
    if (entries.length < this.clusteredFromRows) {
      this.clustering = undefined;
      return undefined;
    }
    const vectors = entries.map((entry) => entry.semantic!.vector);
    const trained = this.clustering?.trainedRows;
    if (trained === undefined || entries.length > trained * 2 || entries.length * 2 < trained) {
      if (this.trainer === undefined) {
        const { centres, clusterOf } = this.train(vectors);
        this.adopt(vectors, centres, clusterOf);
      } else {
        this.trainAside(this.trainer, vectors);
        if (this.clustering === undefined) return undefined;
      }
    }
    // Line items added since the clustering join their nearest centre; the centres stay until the list doubles or halves.
    const clustering = this.clustering!;
    this.reserve(entries.length, clustering.centres.length);
    if (this.layout.centresWritten !== clustering.centres.length) this.writeCentres(clustering.centres);
    return Int32Array.from(vectors, this.clusterOf);
  }

  /** Has the trainer train clusters of these vectors (unless it is already training), and lays the list out again with them. */
  private trainAside(trainer: ClusterTrainer, vectors: Float32Array[]): void {
    if (this.training !== undefined || this.trainerFailed) return;
    this.training = trainer(vectors).then(
      ({ centres, clusterOf }) => {
        this.training = undefined;
        this.adopt(vectors, centres, clusterOf);
        this.fill(this.entries);
      },
      () => {
        // Left scanned whole (or with the clusters it had), as laid out meanwhile; the trainer warned of it.
        this.training = undefined;
        this.trainerFailed = true;
      },
    );
  }

  /** Clusters trained on these vectors (clusterOf by the same index) become the list's. */
  private adopt(vectors: Float32Array[], centres: Float32Array[], clusterOf: Int32Array): void {
    const byVector = new WeakMap<Float32Array, number>();
    vectors.forEach((vector, i) => byVector.set(vector, clusterOf[i]!));
    this.clustering = { centres, clusterOf: byVector, trainedRows: vectors.length };
    this.layout.centresWritten = 0;
  }

  /** A vector's cluster: the one it was put in, else (a line item added since the clustering) its nearest centre's, remembered. Centres written. */
  private clusterOf = (vector: Float32Array): number => {
    const clustering = this.clustering;
    if (clustering === undefined) return 0;
    let cluster = clustering.clusterOf.get(vector);
    if (cluster === undefined) clustering.clusterOf.set(vector, (cluster = this.nearestCentre(vector)));
    return cluster;
  };

  /**
   * The cluster whose centre (as last written by writeCentres) is the most similar to a vector, by
   * the kernel's estimate. Uses the query area: call before a serve's prepare.
   */
  private nearestCentre = (vector: Float32Array): number => {
    this.prepared.ready = false;
    if (this.quantizeQuery(vector, 0) < 0) return 0;
    const { layout } = this;
    const clusters = layout.centresWritten;
    this.kernel.scan(layout.centreMatrix, layout.query, clusters, layout.centreScales, layout.centreThresholds, layout.out, layout.bounds, this.prepared.queryScale, 0, 0);
    this.prepared.ready = false;
    const similar = this.views.bounds;
    let best = 0;
    for (let c = 1; c < clusters; c++) if (similar[c]! > similar[best]!) best = c;
    return best;
  };

  /**
   * Quantizes a vector into the query area (probeKernel.ts), and with `clusters` > 0 compares it with
   * the centres and picks the probes (views.probes) as a serve's prepare does; returns how many
   * probes, or -1 for the zero vector. The kernel rounds by floor(x + 1/2): |x| <= 32767 x (1 + 2^-23),
   * so no component leaves the int16 range, and each is within 1/2 of x as the kernel's bound needs.
   */
  private quantizeQuery(conversation: Float32Array, clusters: number): number {
    const { layout, views } = this;
    views.conversation.set(conversation);
    const count = this.probeKernel.prepare(
      layout.conversation, layout.query, layout.prepared, layout.centreMatrix, clusters, layout.centreScales, layout.bounds, layout.starts, layout.probes, this.probeFloor,
    );
    if (count < 0) return count;
    const queryScale = views.preparedScale[0]!;
    const prepared = this.prepared;
    prepared.ready = true;
    prepared.queryScale = queryScale;
    prepared.halfSumOfMagnitudes = views.preparedSum[0]! / 2;
    prepared.queryError = (queryScale / 2) * (Math.sqrt(this.dimensions) + this.dimensions / 254) + ROUNDING_SLACK;
    return count;
  }

  /** Writes unit centres into the kernel's memory (room reserved), each quantized as a row is. */
  private writeCentres = (centres: Float32Array[]): void => {
    const width = this.blocks * 16;
    const { centreMatrix, centreScales, centreThresholds } = this.views;
    centres.forEach((centre, c) => {
      const quantized = quantize(centre, this.blocks);
      centreMatrix.set(quantized.components, c * width);
      centreScales[c] = quantized.scale;
      centreThresholds[c] = -Infinity;
    });
    this.layout.centresWritten = centres.length;
  };

  private quantized(vector: Float32Array): { components: Int8Array; scale: number; key: number } {
    let row = quantizedRows.get(vector);
    if (row === undefined) quantizedRows.set(vector, (row = quantize(vector, this.blocks)));
    return row;
  }

  /**
   * Room for `rows` rows and `centres` cluster centres: the conversation, its query, the query's scale
   * and sum, the probes, a chunk's runs, the clusters' starts, per-row ranks, scales, thresholds, candidate
   * rows and bounds, the centres' scales, thresholds and components, then the matrix (16-byte aligned).
   */
  private reserve(rows: number, centres: number): void {
    if (rows <= this.layout.rowCapacity && centres <= this.layout.centreCapacity) return;
    // Room for a few more rows than asked: a line item added later is then put in by update(), not laid out again.
    const roundedRows = Math.ceil(Math.max(rows + (rows >> ROW_HEADROOM_SHIFT), this.layout.rowCapacity, 1) / 4) * 4;
    const roundedCentres = Math.ceil(Math.max(centres, this.layout.centreCapacity, 1) / 4) * 4;
    const candidates = Math.max(roundedRows, roundedCentres);
    const width = this.blocks * 16;
    const conversation = 0;
    const query = conversation + width * 4;
    const prepared = query + width * 2;
    const probes = prepared + 16;
    const runs = probes + Math.ceil(PROBED_CLUSTERS / 4) * 16;
    const starts = runs + Math.ceil((PROBED_CLUSTERS + 1) / 4) * 16;
    const ranks = starts + (roundedCentres + 4) * 4;
    const scales = ranks + roundedRows * 4;
    const thresholds = scales + roundedRows * 4;
    const out = thresholds + roundedRows * 4;
    const bounds = out + candidates * 4;
    const centreScales = bounds + candidates * 4;
    const centreThresholds = centreScales + roundedCentres * 4;
    const centreMatrix = centreThresholds + roundedCentres * 4;
    const matrix = centreMatrix + roundedCentres * width;
    const spareStarts = matrix + roundedRows * width;
    const spareRanks = spareStarts + (roundedCentres + 4) * 4;
    const spareScales = spareRanks + roundedRows * 4;
    const spareThresholds = spareScales + roundedRows * 4;
    const spareMatrix = spareThresholds + roundedRows * 4;
    const topScales = spareMatrix + roundedRows * width;
    const topThresholds = topScales + TOP_RANKS * 4;
    const topMatrix = topThresholds + TOP_RANKS * 4;
    const bytes = topMatrix + TOP_RANKS * width;
    const memory = this.kernel.memory;
    if (bytes > memory.buffer.byteLength) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE_BYTES));
    // Growing moves nothing that must survive: fill() writes every row and centre after reserving.
    const spare = { starts: spareStarts, ranks: spareRanks, scales: spareScales, thresholds: spareThresholds, matrix: spareMatrix };
    this.layout = { rowCapacity: roundedRows, centreCapacity: roundedCentres, centresWritten: 0, conversation, query, prepared, probes, runs, starts, ranks, scales, thresholds, out, bounds, centreScales, centreThresholds, centreMatrix, matrix, spare, topScales, topThresholds, topMatrix };
    const buffer = memory.buffer;
    this.views = {
      conversation: new Float32Array(buffer, conversation, this.dimensions),
      query: new Int16Array(buffer, query, width),
      preparedScale: new Float32Array(buffer, prepared, 1),
      preparedSum: new Float64Array(buffer, prepared + 8, 1),
      probes: new Int32Array(buffer, probes, PROBED_CLUSTERS),
      runs: new Int32Array(buffer, runs, PROBED_CLUSTERS + 1),
      ...this.rowViews(this.layout),
      out: new Int32Array(buffer, out, candidates),
      bounds: new Float32Array(buffer, bounds, candidates),
      centreScales: new Float32Array(buffer, centreScales, roundedCentres),
      centreThresholds: new Float32Array(buffer, centreThresholds, roundedCentres),
      centreMatrix: new Int8Array(buffer, centreMatrix, roundedCentres * width),
      topScales: new Float32Array(buffer, topScales, TOP_RANKS),
      topThresholds: new Float32Array(buffer, topThresholds, TOP_RANKS),
      topMatrix: new Int8Array(buffer, topMatrix, TOP_RANKS * width),
    };
  }

  /** Views of one copy of the rows' areas (the layout's own, or its spare). */
  private rowViews(bank: RowBank): { ranks: Int32Array<ArrayBuffer>; scales: Float32Array<ArrayBuffer>; thresholds: Float32Array<ArrayBuffer>; matrix: Int8Array<ArrayBuffer> } {
    const { buffer } = this.kernel.memory;
    const rows = this.layout.rowCapacity;
    return {
      ranks: new Int32Array(buffer, bank.ranks, rows),
      scales: new Float32Array(buffer, bank.scales, rows),
      thresholds: new Float32Array(buffer, bank.thresholds, rows),
      matrix: new Int8Array(buffer, bank.matrix, rows * this.blocks * 16),
    };
  }

  /**
   * The rows as they would be after fill(entries), where `entries` are the rows laid out now in
   * another order (`oldRankOfRank`, each new rank's rank now: a rerank, same line items, same
   * clusters) with these expected values by new rank: written a step of `rowsPerStep` ranks at a
   * time (`steps`) into the spare areas, from the rows laid out now (no line item, vector or
   * WeakMap read: 170-200 ms of fill() at 100,000 rows), while serves scan the rows as they are.
   * A row (a distinct vector of a cluster) keeps its line items, so its threshold; it takes the new
   * rank of the first of them in the new order, and sameVector chains them in that order.
   * `commit` makes them the rows at once. Stale (and not to be committed) until the steps have all
   * run, or for good once the rows were laid out again meanwhile (a patch, trained clusters).
   */
  reorder(oldRankOfRank: Int32Array, expectedValues: Float64Array<ArrayBuffer>, rowsPerStep: number): { steps: Generator<void, void>; stale(): boolean; commit(entries: Entry[]): void } {
    const version = this.layoutVersion;
    const count = this.entries.length;
    const byRank = { vectors: new Array<Float32Array>(count), minSimilarities: new Float64Array(count), sameVector: new Int32Array(count).fill(-1), done: false };
    const stale = () => !byRank.done || this.layoutVersion !== version;
    const commit = (entries: Entry[]): void => {
      if (stale() || entries.length !== count) throw new Error('a stale reorder of the semantic rows was committed');
      this.layoutVersion += 1;
      const { layout } = this;
      const { spare } = layout;
      layout.spare = { starts: layout.starts, ranks: layout.ranks, scales: layout.scales, thresholds: layout.thresholds, matrix: layout.matrix };
      Object.assign(layout, spare);
      Object.assign(this.views, this.rowViews(layout));
      this.prepared.ready = false;
      this.entries = entries.slice();
      this.vectors = byRank.vectors;
      this.minSimilarities = byRank.minSimilarities;
      this.sameVector = byRank.sameVector;
      this.expectedValues = expectedValues;
      this.writeTopRanks();
    };
    return { steps: this.reorderSteps(version, oldRankOfRank, byRank, rowsPerStep), stale, commit };
  }

  private *reorderSteps(
    version: number,
    oldRankOfRank: Int32Array,
    byRank: { vectors: Float32Array[]; minSimilarities: Float64Array; sameVector: Int32Array; done: boolean },
    rowsPerStep: number,
  ): Generator<void, void> {
    if (this.layoutVersion !== version) return;
    const count = this.entries.length;
    const clusters = this.clustering?.centres.length ?? 1;
    const width = this.blocks * 16;
    // Cluster c's rows are [starts[c], starts[c + 1]) now and after: a new order moves rows within their cluster.
    const starts = new Int32Array(this.kernel.memory.buffer, this.layout.starts, clusters + 1).slice();
    const rows = starts[clusters]!;
    const clusterOfRow = new Int32Array(rows);
    for (let c = 0; c < clusters; c++) clusterOfRow.fill(c, starts[c], starts[c + 1]);
    // Each rank's row now: a row's first rank is in the ranks area, its others follow by sameVector.
    const rowOfRank = new Int32Array(count);
    const ranks = this.views.ranks;
    const sameVector = this.sameVector;
    for (let row = 0; row < rows; row++) for (let rank = ranks[row]!; rank >= 0; rank = sameVector[rank]!) rowOfRank[rank] = row;
    // Per row now: its row in the new layout (-1 until its first line item in the new order is met) and its last new rank met so far.
    const newRowOf = new Int32Array(rows).fill(-1);
    const lastRankOf = new Int32Array(rows);
    const next = starts.slice(0, clusters);
    for (let first = 0; first < count; first += rowsPerStep) {
      if (first > 0) {
        yield;
        if (this.layoutVersion !== version) return;
      }
      const now = this.views;
      const spare = this.rowViews(this.layout.spare);
      const bytes = new Uint8Array(this.kernel.memory.buffer);
      const from = this.layout.matrix;
      const to = this.layout.spare.matrix;
      // Ranks ascend within each cluster because they are visited in order, as in fill(); a row takes
      // the new rank of its first line item in the new order, and its line items chain in that order.
      for (let rank = first; rank < Math.min(count, first + rowsPerStep); rank++) {
        const oldRank = oldRankOfRank[rank]!;
        const oldRow = rowOfRank[oldRank]!;
        byRank.vectors[rank] = this.vectors[oldRank]!;
        byRank.minSimilarities[rank] = this.minSimilarities[oldRank]!;
        if (newRowOf[oldRow]! >= 0) {
          byRank.sameVector[lastRankOf[oldRow]!] = rank;
          lastRankOf[oldRow] = rank;
          continue;
        }
        const row = next[clusterOfRow[oldRow]!]!++;
        newRowOf[oldRow] = row;
        lastRankOf[oldRow] = rank;
        spare.ranks[row] = rank;
        spare.scales[row] = now.scales[oldRow]!;
        spare.thresholds[row] = now.thresholds[oldRow]!;
        bytes.copyWithin(to + row * width, from + oldRow * width, from + (oldRow + 1) * width);
      }
    }
    new Int32Array(this.kernel.memory.buffer, this.layout.spare.starts, clusters + 1).set(starts);
    byRank.done = true;
  }
}

/** Where one copy of the rows' areas is in the kernel's memory. */
interface RowBank {
  starts: number;
  ranks: number;
  scales: number;
  thresholds: number;
  matrix: number;
}

function emptyBank(): RowBank {
  return { starts: 0, ranks: 0, scales: 0, thresholds: 0, matrix: 0 };
}

function quantize(vector: Float32Array, blocks: number): { components: Int8Array; scale: number; key: number } {
  let largest = 0;
  for (let d = 0; d < vector.length; d++) largest = Math.max(largest, Math.abs(vector[d]!));
  const scale = Math.fround(largest > 0 ? largest / ROW_LEVELS : 1);
  const components = new Int8Array(blocks * 16);
  for (let d = 0; d < vector.length; d++) components[d] = Math.max(-ROW_LEVELS, Math.min(ROW_LEVELS, Math.round(vector[d]! / scale)));
  return { components, scale, key: hashOfComponents(vector) };
}

/** FNV-1a over the components' float32 bits: equal vectors hash alike. */
function hashOfComponents(vector: Float32Array): number {
  const bits = new Int32Array(vector.buffer, vector.byteOffset, vector.length);
  let hash = 0x811c9dc5;
  for (let d = 0; d < bits.length; d++) hash = Math.imul(hash ^ bits[d]!, 0x01000193);
  return hash;
}

/** Whether two vectors are the same, bit for bit (so every similarity to them is the same). */
function sameComponents(a: Float32Array, b: Float32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  const bitsA = new Int32Array(a.buffer, a.byteOffset, a.length);
  const bitsB = new Int32Array(b.buffer, b.byteOffset, b.length);
  for (let d = 0; d < bitsA.length; d++) if (bitsA[d] !== bitsB[d]) return false;
  return true;
}

function emptyViews() {
  return {
    conversation: new Float32Array(0),
    query: new Int16Array(0),
    preparedScale: new Float32Array(0),
    preparedSum: new Float64Array(0),
    probes: new Int32Array(0),
    runs: new Int32Array(0),
    ranks: new Int32Array(0),
    scales: new Float32Array(0),
    thresholds: new Float32Array(0),
    out: new Int32Array(0),
    bounds: new Float32Array(0),
    centreScales: new Float32Array(0),
    centreThresholds: new Float32Array(0),
    centreMatrix: new Int8Array(0),
    matrix: new Int8Array(0),
    topScales: new Float32Array(0),
    topThresholds: new Float32Array(0),
    topMatrix: new Int8Array(0),
  };
}

/** The cluster whose rows [starts[c], starts[c + 1]) hold `row`: the last start at or before it (empty clusters share their start). */
function clusterOfRow(starts: Int32Array, clusters: number, row: number): number {
  let low = 0;
  let high = clusters - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (starts[middle]! <= row) low = middle;
    else high = middle - 1;
  }
  return low;
}

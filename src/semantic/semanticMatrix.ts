import { scanKernel, type ScanKernel } from './int8ScanKernel.js';

/** What a row is made of: a line item's unit vector and the similarity a serve must reach. */
interface SemanticRow {
  semantic: { vector: Float32Array; minSimilarity: number } | null;
}

const ROW_LEVELS = 127;
const QUERY_LEVELS = 32767;
const PAGE_BYTES = 65536;
/** Covers float32 rounding in the kernel and in the stored thresholds (errors near 1e-7). */
const ROUNDING_SLACK = 1e-5;

/** A row quantized once per line item vector: int8 components (zero-padded to whole blocks) and their scale. */
const quantizedRows = new WeakMap<Float32Array, { components: Int8Array; scale: number }>();

/**
 * Opted-in line items as one contiguous int8 matrix in a WebAssembly memory, in the order of a
 * ranked list (best expected value first), so that a serve scans the whole set, or only the rows
 * that could still beat its best ad, in one SIMD pass (int8ScanKernel.ts).
 *
 * The scan is a filter, never the judge: a row's quantization error is bounded (below), so a row
 * the scan drops cannot reach its min_similarity; every row it keeps is judged by the exact float
 * similarity, as before. What matches is therefore exactly what comparing every line item matches.
 *
 * The bound, for a unit row vector x = s_x (xq + e), |e| <= 1/2 per component (s_x = max|x| / 127)
 * and the conversation q = s_q (qq + f), |f| <= 1/2 (s_q = max|q| / 32767), with D dimensions:
 *   x.q <= s_x (s_q xq.qq + |q|_1 / 2) + s_q (sqrt(D) + D / 254) / 2
 * which is the kernel's  scales[r] x (a x dot + b) + c.
 */
export class SemanticMatrix<Entry extends SemanticRow> {
  /** The rows' line items, in the order fill() was given. */
  entries: Entry[] = [];
  private readonly dimensions: number;
  private readonly blocks: number;
  private readonly kernel: ScanKernel;
  private layout = { capacity: -1, query: 0, scales: 0, thresholds: 0, out: 0, bounds: 0, matrix: 0 };
  private views = emptyViews();

  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.blocks = Math.ceil(dimensions / 16);
    this.kernel = scanKernel(this.blocks);
  }

  /** Lays out these line items (each with a semantic target) as rows, in this order. */
  fill(entries: Entry[]): void {
    this.entries = entries;
    this.reserve(entries.length);
    const width = this.blocks * 16;
    const { matrix, scales, thresholds } = this.views;
    entries.forEach((entry, row) => {
      const { vector, minSimilarity } = entry.semantic!;
      const quantized = this.quantized(vector);
      matrix.set(quantized.components, row * width);
      scales[row] = quantized.scale;
      thresholds[row] = minSimilarity;
    });
  }

  /**
   * Scans the first `rows` rows; returns how many may reach their min_similarity. Their row numbers,
   * ascending, are candidateRows()[0..count), and an upper bound of each one's similarity is
   * candidateBounds() at the same position. Valid until the next scan or fill.
   */
  scan(conversation: Float32Array, rows: number): number {
    if (rows === 0) return 0;
    let largest = 0;
    let sumOfMagnitudes = 0;
    for (let d = 0; d < this.dimensions; d++) {
      const magnitude = Math.abs(conversation[d]!);
      largest = Math.max(largest, magnitude);
      sumOfMagnitudes += magnitude;
    }
    if (largest === 0) return 0;
    const queryScale = Math.fround(largest / QUERY_LEVELS);
    const query = this.views.query;
    for (let d = 0; d < this.dimensions; d++) query[d] = Math.max(-QUERY_LEVELS, Math.min(QUERY_LEVELS, Math.round(conversation[d]! / queryScale)));
    const { layout } = this;
    const queryError = (queryScale / 2) * (Math.sqrt(this.dimensions) + this.dimensions / 254) + ROUNDING_SLACK;
    return this.kernel.scan(layout.matrix, layout.query, Math.min(rows, this.entries.length), layout.scales, layout.thresholds, layout.out, layout.bounds, queryScale, sumOfMagnitudes / 2, queryError);
  }

  candidateRows(): Int32Array {
    return this.views.out;
  }

  candidateBounds(): Float32Array {
    return this.views.bounds;
  }

  /** Bytes of WebAssembly memory this matrix holds. */
  get byteLength(): number {
    return this.kernel.memory.buffer.byteLength;
  }

  private quantized(vector: Float32Array): { components: Int8Array; scale: number } {
    let row = quantizedRows.get(vector);
    if (row === undefined) {
      let largest = 0;
      for (let d = 0; d < vector.length; d++) largest = Math.max(largest, Math.abs(vector[d]!));
      const scale = Math.fround(largest > 0 ? largest / ROW_LEVELS : 1);
      const components = new Int8Array(this.blocks * 16);
      for (let d = 0; d < vector.length; d++) components[d] = Math.max(-ROW_LEVELS, Math.min(ROW_LEVELS, Math.round(vector[d]! / scale)));
      quantizedRows.set(vector, (row = { components, scale }));
    }
    return row;
  }

  /** Room for `capacity` rows: query, per-row scales, thresholds, candidate rows and bounds, then the matrix (16-byte aligned). */
  private reserve(capacity: number): void {
    if (capacity <= this.layout.capacity) return;
    const rounded = Math.ceil(Math.max(capacity, 1) / 4) * 4;
    const width = this.blocks * 16;
    const query = 0;
    const scales = query + width * 2;
    const thresholds = scales + rounded * 4;
    const out = thresholds + rounded * 4;
    const bounds = out + rounded * 4;
    const matrix = bounds + rounded * 4;
    const bytes = matrix + rounded * width;
    const memory = this.kernel.memory;
    if (bytes > memory.buffer.byteLength) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE_BYTES));
    this.layout = { capacity: rounded, query, scales, thresholds, out, bounds, matrix };
    const buffer = memory.buffer;
    this.views = {
      query: new Int16Array(buffer, query, width),
      scales: new Float32Array(buffer, scales, rounded),
      thresholds: new Float32Array(buffer, thresholds, rounded),
      out: new Int32Array(buffer, out, rounded),
      bounds: new Float32Array(buffer, bounds, rounded),
      matrix: new Int8Array(buffer, matrix, rounded * width),
    };
  }
}

function emptyViews() {
  return { query: new Int16Array(0), scales: new Float32Array(0), thresholds: new Float32Array(0), out: new Int32Array(0), bounds: new Float32Array(0), matrix: new Int8Array(0) };
}

import { F32, I32, V128, assembleModuleOnMemory, op, v128Load } from '../wasm/wasmOps.js';
import { int8DotProduct } from './int8ScanKernel.js';

/**
 * One chunk of a clustered semantic matrix's scan in one WebAssembly call, in the scan kernel's
 * memory (int8ScanKernel.ts): for each probed cluster, the rows ranked in [from, end) (two binary
 * searches over the ranks of its rows, which ascend within a cluster), scanned as the scan kernel
 * scans them. In JavaScript around the scan kernel this was one call and two searches per probed
 * cluster, then a translation of each kept row to its rank (bench/README.md, "Semantic: session 31").
 *
 * scan(probes, probeCount, starts, ranks, from, end, matrix, query, scales, thresholds, out, bounds, runs, a, b, c) -> count:
 * - probes: int32 cluster numbers; starts: int32, cluster k's rows are [starts[k], starts[k + 1]);
 *   ranks: int32, each row's rank.
 * - for each probed cluster p in order, each of its rows r ranked in [from, end), by ascending rank:
 *   the integer dot product of the int8 row (matrix + r x 16 blocks) with the int16 query, and when
 *   scales[r] x (a x dot + b) + c >= thresholds[r] (float32, the scan kernel's bound, in the same
 *   order of operations) its rank goes to out[count] and that bound to bounds[count].
 * - runs[p] is the count after probe p (so probe p's candidates are [runs[p - 1], runs[p])), and
 *   runs[probed] (the most probes the kernel was made for) the rows scanned.
 * All arguments but probeCount, from, end and the three floats are byte offsets into the memory.
 */
const [PROBES, PROBE_COUNT, STARTS, RANKS, FROM, END, MATRIX, QUERY, SCALES, THRESHOLDS, OUT, BOUNDS, RUNS, A, B, C] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const [P, CLUSTER_END, LOW, HIGH, MIDDLE, ROW, LAST, COUNT, SCANNED, ROW_AT] = [16, 17, 18, 19, 20, 21, 22, 23, 24, 25];
const [BOUND, ACC, LOADED, FIRST_QUERY] = [26, 27, 28, 29];

/** `base + (index << 2)`: the address of a 4-byte element. */
const element = (base: number, index: number) => [...op.localGet(base), ...op.localGet(index), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add];

/** LOW becomes the first row of [LOW, HIGH) ranked at least `key` (a local). */
const firstRankedFrom = (key: number) => [
  ...op.block, ...op.loop,
  ...op.localGet(LOW), ...op.localGet(HIGH), ...op.i32LtU, ...op.i32Eqz, ...op.brIf(1),
  ...op.localGet(LOW), ...op.localGet(HIGH), ...op.i32Add, ...op.i32Const(1), ...op.i32ShrU, ...op.localSet(MIDDLE),
  ...element(RANKS, MIDDLE), ...op.i32Load, ...op.localGet(key), ...op.i32LtU,
  ...op.if, ...op.localGet(MIDDLE), ...op.i32Const(1), ...op.i32Add, ...op.localSet(LOW),
  ...op.else, ...op.localGet(MIDDLE), ...op.localSet(HIGH), ...op.end,
  ...op.br(0),
  ...op.end, ...op.end,
];

function scanBody(blocks: number, probed: number): number[] {
  const width = 16 * blocks;
  // The query's blocks are held in locals for every row.
  const dot = int8DotProduct(blocks, ROW_AT, (half) => op.localGet(FIRST_QUERY + half), ACC, LOADED);
  const scanRows = [
    ...op.localGet(MATRIX), ...op.localGet(ROW), ...op.i32Const(width), ...op.i32Mul, ...op.i32Add, ...op.localSet(ROW_AT),
    ...op.block, ...op.loop,
    ...op.localGet(ROW), ...op.localGet(LAST), ...op.i32LtU, ...op.i32Eqz, ...op.brIf(1),
    // bound = scales[row] * (a * dot + b) + c, as the scan kernel computes it
    ...element(SCALES, ROW), ...op.f32Load,
    ...op.localGet(A), ...dot, ...op.f32ConvertI32S, ...op.f32Mul, ...op.localGet(B), ...op.f32Add,
    ...op.f32Mul, ...op.localGet(C), ...op.f32Add, ...op.localTee(BOUND),
    ...element(THRESHOLDS, ROW), ...op.f32Load, ...op.f32Ge,
    ...op.if,
    ...element(OUT, COUNT), ...element(RANKS, ROW), ...op.i32Load, ...op.i32Store,
    ...element(BOUNDS, COUNT), ...op.localGet(BOUND), ...op.f32Store,
    ...op.localGet(COUNT), ...op.i32Const(1), ...op.i32Add, ...op.localSet(COUNT),
    ...op.end,
    ...op.localGet(ROW_AT), ...op.i32Const(width), ...op.i32Add, ...op.localSet(ROW_AT),
    ...op.localGet(ROW), ...op.i32Const(1), ...op.i32Add, ...op.localSet(ROW),
    ...op.br(0),
    ...op.end, ...op.end,
  ];
  const probes = [
    ...op.block, ...op.loop,
    ...op.localGet(P), ...op.localGet(PROBE_COUNT), ...op.i32LtU, ...op.i32Eqz, ...op.brIf(1),
    // MIDDLE holds the address of the cluster's start here.
    ...op.localGet(STARTS), ...element(PROBES, P), ...op.i32Load, ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.localTee(MIDDLE),
    ...op.i32Load, ...op.localSet(LOW),
    ...op.localGet(MIDDLE), ...op.i32LoadAt(4), ...op.localTee(CLUSTER_END), ...op.localSet(HIGH),
    ...firstRankedFrom(FROM),
    ...op.localGet(LOW), ...op.localSet(ROW),
    ...op.localGet(CLUSTER_END), ...op.localSet(HIGH),
    ...firstRankedFrom(END),
    ...op.localGet(LOW), ...op.localSet(LAST),
    ...op.localGet(SCANNED), ...op.localGet(LAST), ...op.i32Add, ...op.localGet(ROW), ...op.i32Sub, ...op.localSet(SCANNED),
    ...scanRows,
    ...element(RUNS, P), ...op.localGet(COUNT), ...op.i32Store,
    ...op.localGet(P), ...op.i32Const(1), ...op.i32Add, ...op.localSet(P),
    ...op.br(0),
    ...op.end, ...op.end,
  ];
  return [
    ...Array.from({ length: 2 * blocks }, (_, half) => [...op.localGet(QUERY), ...v128Load(16 * half), ...op.localSet(FIRST_QUERY + half)]).flat(),
    ...probes,
    ...op.localGet(RUNS), ...op.localGet(SCANNED), ...op.i32StoreAt(4 * probed),
    ...op.localGet(COUNT),
    ...op.end,
  ];
}

export interface ProbedScanKernel {
  scan(probes: number, probeCount: number, starts: number, ranks: number, from: number, end: number, matrix: number, query: number, scales: number, thresholds: number, out: number, bounds: number, runs: number, a: number, b: number, c: number): number;
}

const modules = new Map<string, WebAssembly.Module>();

/** The kernel for rows of `blocks` x 16 int8 components and up to `probed` probes, working in `memory` (a scan kernel's). */
export function probedScanKernel(memory: WebAssembly.Memory, blocks: number, probed: number): ProbedScanKernel {
  const key = `${blocks}/${probed}`;
  let module = modules.get(key);
  if (module === undefined) {
    const bytes = assembleModuleOnMemory('scan', [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, F32], [I32], [3, 10, I32, 1, F32, 2 + 2 * blocks, V128], scanBody(blocks, probed));
    modules.set(key, (module = new WebAssembly.Module(bytes)));
  }
  return new WebAssembly.Instance(module, { kernel: { memory } }).exports as unknown as ProbedScanKernel;
}

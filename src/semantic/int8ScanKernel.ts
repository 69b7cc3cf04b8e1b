/**
 * A WebAssembly SIMD kernel that compares one conversation with every row of an int8 matrix: plain
 * JS does about one multiply-add per nanosecond (1.1 ms for 10,000 line items x 100 dimensions),
 * this about ten times that. Node 20 runs wasm SIMD without flags; no package and no build step is
 * needed, because the module is assembled here, a few hundred bytes, for the matrix's row width.
 *
 * scan(matrix, query, rows, scales, thresholds, out, bounds, a, b, c) -> count: for each row r of
 * `rows` (int8, `blocks` x 16 components each) it takes the integer dot product with the int16
 * query, and when  scales[r] x (a x dot + b) + c >= thresholds[r]  (float32) it writes r to out[count]
 * and that left-hand side to bounds[count]. All arguments are byte offsets into the module's memory
 * except rows and the three floats. See semanticMatrix.ts for what a, b and c are.
 */
import {
  F32, I32, V128, assembleModule, i16x8ExtendHighI8x16S, i16x8ExtendLowI8x16S, i32x4Add, i32x4DotI16x8S, i32x4ExtractLane, op, v128Load, v128Zero,
} from '../wasm/wasmOps.js';

// Parameters, then locals, by index (the order the function type and the locals declaration give).
const [MATRIX, QUERY, ROWS, SCALES, THRESHOLDS, OUT, BOUNDS, A, B, C] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const [ROW, COUNT, BOUND, ACC, LOADED] = [10, 11, 12, 13, 14];

/** `base + (index << 2)`: the address of a 4-byte element. */
const element = (base: number, index: number) => [...op.localGet(base), ...op.localGet(index), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add];

/**
 * The integer dot product of the int8 row at local `rowAt` (`blocks` x 16 components) with the
 * int16 query, left on the stack as an i32: unrolled over the row, each block's two halves widened
 * to int16 and multiplied with the query's (`queryHalf(h)` pushes the query's 16 bytes h, h < 2 x
 * blocks), summed in the v128 local `acc` (`loaded` holds the block), then across its lanes. The
 * integer sum is exact in any order. Shared by this kernel and probedScanKernel.ts.
 */
export function int8DotProduct(blocks: number, rowAt: number, queryHalf: (half: number) => number[], acc: number, loaded: number): number[] {
  const dot: number[] = [...v128Zero, ...op.localSet(acc)];
  for (let block = 0; block < blocks; block++) {
    dot.push(
      ...op.localGet(rowAt), ...v128Load(16 * block), ...op.localSet(loaded),
      ...op.localGet(acc),
      ...op.localGet(loaded), ...i16x8ExtendLowI8x16S, ...queryHalf(2 * block), ...i32x4DotI16x8S, ...i32x4Add,
      ...op.localGet(loaded), ...i16x8ExtendHighI8x16S, ...queryHalf(2 * block + 1), ...i32x4DotI16x8S, ...i32x4Add,
      ...op.localSet(acc),
    );
  }
  dot.push(
    ...op.localGet(acc), ...i32x4ExtractLane(0),
    ...op.localGet(acc), ...i32x4ExtractLane(1), ...op.i32Add,
    ...op.localGet(acc), ...i32x4ExtractLane(2), ...op.i32Add,
    ...op.localGet(acc), ...i32x4ExtractLane(3), ...op.i32Add,
  );
  return dot;
}

function scanBody(blocks: number): number[] {
  // The query's offsets are constants, and the loop is once per row.
  const dot = int8DotProduct(blocks, MATRIX, (half) => [...op.localGet(QUERY), ...v128Load(16 * half)], ACC, LOADED);
  return [
    ...op.localGet(ROWS), ...op.i32Eqz, ...op.if, ...op.i32Const(0), ...op.return, ...op.end,
    ...op.loop,
    // bound = scales[row] * (a * dot + b) + c
    ...element(SCALES, ROW), ...op.f32Load,
    ...op.localGet(A), ...dot, ...op.f32ConvertI32S, ...op.f32Mul, ...op.localGet(B), ...op.f32Add,
    ...op.f32Mul, ...op.localGet(C), ...op.f32Add, ...op.localTee(BOUND),
    ...element(THRESHOLDS, ROW), ...op.f32Load, ...op.f32Ge,
    ...op.if,
    ...element(OUT, COUNT), ...op.localGet(ROW), ...op.i32Store,
    ...element(BOUNDS, COUNT), ...op.localGet(BOUND), ...op.f32Store,
    ...op.localGet(COUNT), ...op.i32Const(1), ...op.i32Add, ...op.localSet(COUNT),
    ...op.end,
    ...op.localGet(MATRIX), ...op.i32Const(16 * blocks), ...op.i32Add, ...op.localSet(MATRIX),
    ...op.localGet(ROW), ...op.i32Const(1), ...op.i32Add, ...op.localTee(ROW), ...op.localGet(ROWS), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...op.localGet(COUNT),
    ...op.end,
  ];
}

function assemble(blocks: number): Uint8Array<ArrayBuffer> {
  return assembleModule('scan', [I32, I32, I32, I32, I32, I32, I32, F32, F32, F32], [I32], [3, 2, I32, 1, F32, 2, V128], scanBody(blocks));
}

export interface ScanKernel {
  memory: WebAssembly.Memory;
  scan(matrix: number, query: number, rows: number, scales: number, thresholds: number, out: number, bounds: number, a: number, b: number, c: number): number;
}

const modules = new Map<number, WebAssembly.Module>();

/** A kernel with its own memory (grow it to fit), for rows of `blocks` x 16 int8 components. */
export function scanKernel(blocks: number): ScanKernel {
  let module = modules.get(blocks);
  if (module === undefined) modules.set(blocks, (module = new WebAssembly.Module(assemble(blocks))));
  return new WebAssembly.Instance(module).exports as unknown as ScanKernel;
}

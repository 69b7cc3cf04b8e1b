import {
  I32, V128, assembleModule, f32x4Add, f32x4ConvertI32x4S, f32x4Mul, f32x4Splat, i16x8ExtendHighI8x16S, i16x8ExtendLowI8x16S,
  i32x4ExtendHighI16x8S, i32x4ExtendLowI16x8S, op, v128Load, v128Store,
} from '../wasm/wasmOps.js';

/**
 * A WebAssembly SIMD kernel that adds up weighted word vectors: the heart of embedding a
 * conversation. Plain JS takes about 200 ns per word (100 int8 components x a float weight, with
 * bounds checks); this about a tenth of that.
 *
 * sum(rows, weights, count, out): out = sum over i < count of weights[i] x the int8 row (`blocks` x
 * 16 components) that starts at byte rows[i], as float32, `blocks` x 16 of them. All arguments but
 * count are byte offsets into the module's memory.
 */
const [ROWS, WEIGHTS, COUNT, OUT] = [0, 1, 2, 3];
const [WORD, BASE, WEIGHT, LOADED, HALF, FIRST_SUM] = [4, 5, 6, 7, 8, 9];

function sumBody(blocks: number): number[] {
  const accumulate = (sum: number, widen: number[]) => [
    ...op.localGet(sum), ...op.localGet(HALF), ...widen, ...f32x4ConvertI32x4S, ...op.localGet(WEIGHT), ...f32x4Mul, ...f32x4Add, ...op.localSet(sum),
  ];
  const word: number[] = [
    // base = rows[word]; weight = weights[word] in every lane
    ...op.localGet(ROWS), ...op.localGet(WORD), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.i32Load, ...op.localSet(BASE),
    ...op.localGet(WEIGHTS), ...op.localGet(WORD), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.f32Load, ...f32x4Splat, ...op.localSet(WEIGHT),
  ];
  // Sums are kept in locals (zero at the start): 16 components per block, in four lanes of four.
  for (let block = 0; block < blocks; block++) {
    const sum = FIRST_SUM + 4 * block;
    word.push(
      ...op.localGet(BASE), ...v128Load(16 * block), ...op.localSet(LOADED),
      ...op.localGet(LOADED), ...i16x8ExtendLowI8x16S, ...op.localSet(HALF),
      ...accumulate(sum, i32x4ExtendLowI16x8S), ...accumulate(sum + 1, i32x4ExtendHighI16x8S),
      ...op.localGet(LOADED), ...i16x8ExtendHighI8x16S, ...op.localSet(HALF),
      ...accumulate(sum + 2, i32x4ExtendLowI16x8S), ...accumulate(sum + 3, i32x4ExtendHighI16x8S),
    );
  }
  const store: number[] = [];
  for (let lane = 0; lane < 4 * blocks; lane++) store.push(...op.localGet(OUT), ...op.localGet(FIRST_SUM + lane), ...v128Store(16 * lane));
  return [
    ...op.localGet(COUNT), ...op.if,
    ...op.loop,
    ...word,
    ...op.localGet(WORD), ...op.i32Const(1), ...op.i32Add, ...op.localTee(WORD), ...op.localGet(COUNT), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...op.end,
    ...store,
    ...op.end,
  ];
}

export interface WordSumKernel {
  memory: WebAssembly.Memory;
  sum(rows: number, weights: number, count: number, out: number): void;
}

/** A kernel with its own memory (grow it to fit), for rows of `blocks` x 16 int8 components. */
export function wordSumKernel(blocks: number): WordSumKernel {
  const module = new WebAssembly.Module(assembleModule('sum', [I32, I32, I32, I32], [], [2, 2, I32, 3 + 4 * blocks, V128], sumBody(blocks)));
  return new WebAssembly.Instance(module).exports as unknown as WordSumKernel;
}

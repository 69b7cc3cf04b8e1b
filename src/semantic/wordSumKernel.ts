import {
  F32, F64, I32, V128, assembleModule, f32x4Add, f32x4ConvertI32x4S, f32x4Mul, f32x4Splat, i16x8ExtendHighI8x16S, i16x8ExtendLowI8x16S,
  i32x4ExtendHighI16x8S, i32x4ExtendLowI16x8S, op, v128Load, v128Store,
} from '../wasm/wasmOps.js';

/**
 * A WebAssembly SIMD kernel that looks words up in the model's word table and adds up their
 * weighted vectors: the heart of embedding a conversation. Plain JS took about 200 ns per word for
 * the sum (100 int8 components x a float weight, with bounds checks); this about a tenth of that.
 * With cold caches each word's slot is a cache and TLB miss: all of a call's slots are read first,
 * in one short loop, so that the misses overlap (below).
 *
 * The table (semanticModel.ts) starts at byte 0: `slots` slots of `slotBytes` bytes, each the word's
 * hash, rank + 1 (0: empty), check hash, weight (float32), then its int8 row of `blocks` x 16
 * components; linear probing from hash & (slots - 1).
 *
 * embed(hashes, checks, count, out, common) -> known: out = sum over the i < count whose word is in the
 * table (both hashes[i] and checks[i] equal) of its weight x its row, as float32, `blocks` x 16 of
 * them (followed by one int of scratch and a float64); returns how many were found. With common > 0
 * (a unit vector of `dimensions` float32) it then finishes the sum as SIF does (semanticModel.ts):
 * removes its projection on common and scales it to unit length, writing the squared length before
 * that scaling at out + 64 x blocks + 8 (no scaling when it is not above 0). In JavaScript the finish
 * took 0.57 us a conversation; it computes the same float64 steps in the same order here. All
 * arguments but count are byte offsets into the module's memory.
 */
const [HASHES, CHECKS, COUNT, OUT, COMMON] = [0, 1, 2, 3, 4];
const [WORD, SLOT, BASE, KNOWN, HASH, WEIGHT, LOADED, HALF, FIRST_SUM] = [5, 6, 7, 8, 9, 10, 11, 12, 13];

/** The address of out[d] and the float64 values of out[d] and common[d], d the local WORD (reused). */
const outAt = [...op.localGet(OUT), ...op.localGet(WORD), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add];
const loadOut = [...outAt, ...op.f32Load, ...op.f64PromoteF32];
const loadCommon = [...op.localGet(COMMON), ...op.localGet(WORD), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.f32Load, ...op.f64PromoteF32];
/** for (WORD = 0; WORD < dimensions; WORD++) body. */
const overComponents = (dimensions: number, body: number[]) => [
  ...op.i32Const(0), ...op.localSet(WORD), ...op.loop, ...body, ...op.localGet(WORD), ...op.i32Const(1), ...op.i32Add, ...op.localTee(WORD), ...op.i32Const(dimensions), ...op.i32LtU, ...op.brIf(0), ...op.end,
];

/**
 * SIF's finish of the sum in out, as semanticModel.ts did it in JavaScript: projection = sum of
 * out[d] x common[d]; out[d] = float32(out[d] - projection x common[d]) and norm = sum of out[d]^2;
 * then, if norm > 0, out[d] = float32(out[d] x (1 / sqrt(norm))). Float64 throughout, summed in order.
 */
function finishBody(dimensions: number, blocks: number, projection: number, norm: number, value: number): number[] {
  return [
    ...overComponents(dimensions, [...op.localGet(projection), ...loadOut, ...loadCommon, ...op.f64Mul, ...op.f64Add, ...op.localSet(projection)]),
    ...overComponents(dimensions, [
      ...outAt, ...loadOut, ...op.localGet(projection), ...loadCommon, ...op.f64Mul, ...op.f64Sub, ...op.f32DemoteF64, ...op.localTee(value), ...op.f32Store,
      ...op.localGet(norm), ...op.localGet(value), ...op.f64PromoteF32, ...op.localGet(value), ...op.f64PromoteF32, ...op.f64Mul, ...op.f64Add, ...op.localSet(norm),
    ]),
    ...op.localGet(OUT), ...op.localGet(norm), ...op.f64StoreAt(64 * blocks + 8),
    ...op.localGet(norm), ...op.f64Const(0), ...op.f64Gt, ...op.if,
    ...op.f64Const(1), ...op.localGet(norm), ...op.f64Sqrt, ...op.f64Div, ...op.localSet(projection),
    ...overComponents(dimensions, [...outAt, ...loadOut, ...op.localGet(projection), ...op.f64Mul, ...op.f32DemoteF64, ...op.f32Store]),
    ...op.end,
  ];
}

function embedBody(dimensions: number, blocks: number, slots: number, slotBytes: number): number[] {
  // After the sums' locals: the finish's two float64 and one float32.
  const [projection, norm, value] = [FIRST_SUM + 4 * blocks, FIRST_SUM + 4 * blocks + 1, FIRST_SUM + 4 * blocks + 2];
  const accumulate = (sum: number, widen: number[]) => [
    ...op.localGet(sum), ...op.localGet(HALF), ...widen, ...f32x4ConvertI32x4S, ...op.localGet(WEIGHT), ...f32x4Mul, ...f32x4Add, ...op.localSet(sum),
  ];
  const element = (base: number) => [...op.localGet(base), ...op.localGet(WORD), ...op.i32Const(2), ...op.i32Shl, ...op.i32Add];
  // Found: weight in every lane, then the row's blocks into the sums (kept in locals, zero at the start), 16 components in four lanes of four.
  const add: number[] = [...op.localGet(BASE), ...op.f32LoadAt(12), ...f32x4Splat, ...op.localSet(WEIGHT)];
  for (let block = 0; block < blocks; block++) {
    const sum = FIRST_SUM + 4 * block;
    add.push(
      ...op.localGet(BASE), ...v128Load(16 + 16 * block), ...op.localSet(LOADED),
      ...op.localGet(LOADED), ...i16x8ExtendLowI8x16S, ...op.localSet(HALF),
      ...accumulate(sum, i32x4ExtendLowI16x8S), ...accumulate(sum + 1, i32x4ExtendHighI16x8S),
      ...op.localGet(LOADED), ...i16x8ExtendHighI8x16S, ...op.localSet(HALF),
      ...accumulate(sum + 2, i32x4ExtendLowI16x8S), ...accumulate(sum + 3, i32x4ExtendHighI16x8S),
    );
  }
  add.push(...op.localGet(KNOWN), ...op.i32Const(1), ...op.i32Add, ...op.localSet(KNOWN));
  const word: number[] = [
    ...element(HASHES), ...op.i32Load, ...op.localTee(HASH), ...op.i32Const(slots - 1), ...op.i32And, ...op.localSet(SLOT),
    ...op.block,
    ...op.loop,
    ...op.localGet(SLOT), ...op.i32Const(slotBytes), ...op.i32Mul, ...op.localTee(BASE),
    // an empty slot: the word is not in the table
    ...op.i32LoadAt(4), ...op.i32Eqz, ...op.brIf(1),
    ...op.localGet(BASE), ...op.i32Load, ...op.localGet(HASH), ...op.i32Eq,
    ...op.localGet(BASE), ...op.i32LoadAt(8), ...element(CHECKS), ...op.i32Load, ...op.i32Eq,
    ...op.i32And,
    ...op.if, ...add, ...op.br(2), ...op.end,
    ...op.localGet(SLOT), ...op.i32Const(1), ...op.i32Add, ...op.i32Const(slots - 1), ...op.i32And, ...op.localSet(SLOT),
    ...op.br(0),
    ...op.end,
    ...op.end,
  ];
  // First every word's home slot is read (each of its cache lines), in a loop short enough that all the
  // reads are in flight at once: with cold caches each is a cache and TLB miss, which the lookups
  // below, a hundred instructions a word with branches on each word's outcome, overlap only a few at
  // a time. What was read is stored (after the sums), so that no read can be dropped as unused.
  const touch: number[] = [
    ...op.loop,
    ...element(HASHES), ...op.i32Load, ...op.i32Const(slots - 1), ...op.i32And, ...op.i32Const(slotBytes), ...op.i32Mul, ...op.localTee(BASE),
    ...op.i32LoadAt(4), ...op.localGet(KNOWN), ...op.i32Xor, ...op.localSet(KNOWN),
    ...Array.from({ length: slotBytes / 64 - 1 }, (_, line) => [...op.localGet(BASE), ...op.i32LoadAt(64 * (line + 1)), ...op.localGet(KNOWN), ...op.i32Xor, ...op.localSet(KNOWN)]).flat(),
    ...op.localGet(WORD), ...op.i32Const(1), ...op.i32Add, ...op.localTee(WORD), ...op.localGet(COUNT), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...op.localGet(OUT), ...op.localGet(KNOWN), ...op.i32StoreAt(64 * blocks),
    ...op.i32Const(0), ...op.localSet(KNOWN), ...op.i32Const(0), ...op.localSet(WORD),
  ];
  const store: number[] = [];
  for (let lane = 0; lane < 4 * blocks; lane++) store.push(...op.localGet(OUT), ...op.localGet(FIRST_SUM + lane), ...v128Store(16 * lane));
  return [
    ...op.localGet(COUNT), ...op.if,
    ...touch,
    ...op.loop,
    ...word,
    ...op.localGet(WORD), ...op.i32Const(1), ...op.i32Add, ...op.localTee(WORD), ...op.localGet(COUNT), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...op.end,
    ...store,
    ...op.localGet(COMMON), ...op.if, ...finishBody(dimensions, blocks, projection, norm, value), ...op.end,
    ...op.localGet(KNOWN),
    ...op.end,
  ];
}

export interface WordSumKernel {
  memory: WebAssembly.Memory;
  embed(hashes: number, checks: number, count: number, out: number, common: number): number;
}

/** A kernel with its own memory (grow it to fit) for a table of `slots` (a power of two) slots of `slotBytes`, rows of `dimensions` int8 components padded to `blocks` x 16. */
export function wordSumKernel(dimensions: number, blocks: number, slots: number, slotBytes: number): WordSumKernel {
  const locals = [4, 5, I32, 3 + 4 * blocks, V128, 2, F64, 1, F32];
  const module = new WebAssembly.Module(assembleModule('embed', [I32, I32, I32, I32, I32], [I32], locals, embedBody(dimensions, blocks, slots, slotBytes)));
  return new WebAssembly.Instance(module).exports as unknown as WordSumKernel;
}

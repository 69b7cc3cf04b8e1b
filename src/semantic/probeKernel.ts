import {
  F32, F64, I32, V128, assembleModuleOnMemory, i16x8ExtendHighI8x16S, i16x8ExtendLowI8x16S, i32x4Add, i32x4DotI16x8S, i32x4ExtractLane, op, v128Load, v128Zero,
} from '../wasm/wasmOps.js';

/**
 * A serve's preparation of a clustered semantic matrix in one WebAssembly call, in the scan
 * kernel's memory (int8ScanKernel.ts): the conversation's quantization, its comparison with the
 * clusters' centres and the choice of the clusters to probe. In JavaScript around the scan kernel
 * this took 1.43 us a serve (warm), here 1.0 (bench/README.md, "Semantic: session 30"). Each step
 * computes what semanticMatrix.ts and the scan kernel did, in the same order and precision (float64
 * where JavaScript's numbers were), so the same query, estimates and probes come out.
 *
 * prepare(conversation, query, results, centreMatrix, centres, centreScales, bounds, starts, probes, floor) -> count:
 * - quantizes the float32 conversation (`dimensions` of them) into the int16 query: scale =
 *   float32(max |x| / 32767), query[d] = floor(x[d] / scale + 1/2); writes the scale (float32) at
 *   results and the sum of |x| (float64, summed in order) at results + 8. Returns -1 for the zero vector.
 * - with centres > 0: each centre's estimate, centreScales[c] x (scale x the integer dot product
 *   of its int8 row with the query) in float32, as the scan kernel's bound with b = c = 0, into
 *   bounds[c]; then the up to `probed` most similar non-empty clusters (starts: int32, cluster c's
 *   rows are [starts[c], starts[c + 1])), most similar first, the earlier first on equal estimates,
 *   into probes (int32); none when the most similar is below `floor` (float64). Returns how many.
 * All arguments but centres and floor are byte offsets into the memory.
 */
const [CONVERSATION, QUERY, RESULTS, CENTRE_MATRIX, CENTRES, CENTRE_SCALES, BOUNDS, STARTS, PROBES, FLOOR] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
const [D, COUNT, AT, PREVIOUS] = [10, 11, 12, 13];
const [MAGNITUDE, LARGEST, SUM, SCALE] = [14, 15, 16, 17];
const [CENTRE, CUT, A] = [18, 19, 20];
const [ACC, LOADED, FIRST_QUERY] = [21, 22, 23];
const QUERY_LEVELS = 32767;

/** `base + (index << shift)`. */
const address = (base: number, index: number, shift: number) => [...op.localGet(base), ...op.localGet(index), ...op.i32Const(shift), ...op.i32Shl, ...op.i32Add];
/** The float32 estimate of cluster `probes[at]` (a local's value), as float32 on the stack. */
const estimateOfProbe = (at: number[]) => [...op.localGet(BOUNDS), ...op.localGet(PROBES), ...at, ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.i32Load, ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.f32Load];
const component = [...address(CONVERSATION, D, 2), ...op.f32Load, ...op.f64PromoteF32];
/** for (D = 0; D < limit; D++) body (limit > 0). */
const forD = (limit: number[], body: number[]) => [...op.i32Const(0), ...op.localSet(D), ...op.loop, ...body, ...op.localGet(D), ...op.i32Const(1), ...op.i32Add, ...op.localTee(D), ...limit, ...op.i32LtU, ...op.brIf(0), ...op.end];

function prepareBody(dimensions: number, blocks: number, probed: number): number[] {
  const quantize = [
    ...forD(op.i32Const(dimensions), [
      ...component, ...op.f64Abs, ...op.localTee(MAGNITUDE), ...op.localGet(LARGEST), ...op.f64Max, ...op.localSet(LARGEST),
      ...op.localGet(SUM), ...op.localGet(MAGNITUDE), ...op.f64Add, ...op.localSet(SUM),
    ]),
    ...op.localGet(RESULTS), ...op.localGet(SUM), ...op.f64StoreAt(8),
    ...op.localGet(LARGEST), ...op.f64Const(0), ...op.f64Eq, ...op.if, ...op.i32Const(-1), ...op.return, ...op.end,
    ...op.localGet(LARGEST), ...op.f64Const(QUERY_LEVELS), ...op.f64Div, ...op.f32DemoteF64, ...op.f64PromoteF32, ...op.localSet(SCALE),
    ...op.localGet(RESULTS), ...op.localGet(SCALE), ...op.f32DemoteF64, ...op.f32Store,
    ...forD(op.i32Const(dimensions), [
      ...address(QUERY, D, 1), ...component, ...op.localGet(SCALE), ...op.f64Div, ...op.f64Const(0.5), ...op.f64Add, ...op.f64Floor, ...op.i32TruncF64S, ...op.i32Store16,
    ]),
  ];
  // The centres' estimates, as the scan kernel computes a row's bound (its + 0s dropped: they change
  // no comparison below), with the query's blocks held in locals: about a third fewer instructions a
  // centre. The integer dot product is exact in any order.
  const centreDot: number[] = [...v128Zero, ...op.localSet(ACC)];
  for (let block = 0; block < blocks; block++) {
    centreDot.push(
      ...op.localGet(CENTRE_MATRIX), ...v128Load(16 * block), ...op.localSet(LOADED),
      ...op.localGet(ACC),
      ...op.localGet(LOADED), ...i16x8ExtendLowI8x16S, ...op.localGet(FIRST_QUERY + 2 * block), ...i32x4DotI16x8S, ...i32x4Add,
      ...op.localGet(LOADED), ...i16x8ExtendHighI8x16S, ...op.localGet(FIRST_QUERY + 2 * block + 1), ...i32x4DotI16x8S, ...i32x4Add,
      ...op.localSet(ACC),
    );
  }
  const centres = [
    ...Array.from({ length: 2 * blocks }, (_, half) => [...op.localGet(QUERY), ...v128Load(16 * half), ...op.localSet(FIRST_QUERY + half)]).flat(),
    ...op.localGet(SCALE), ...op.f32DemoteF64, ...op.localSet(A),
    ...forD(op.localGet(CENTRES), [
      ...centreDot,
      ...address(BOUNDS, D, 2),
      ...address(CENTRE_SCALES, D, 2), ...op.f32Load,
      ...op.localGet(A),
      ...op.localGet(ACC), ...i32x4ExtractLane(0), ...op.localGet(ACC), ...i32x4ExtractLane(1), ...op.i32Add,
      ...op.localGet(ACC), ...i32x4ExtractLane(2), ...op.i32Add, ...op.localGet(ACC), ...i32x4ExtractLane(3), ...op.i32Add,
      ...op.f32ConvertI32S, ...op.f32Mul, ...op.f32Mul, ...op.f32Store,
      ...op.localGet(CENTRE_MATRIX), ...op.i32Const(16 * blocks), ...op.i32Add, ...op.localSet(CENTRE_MATRIX),
    ]),
  ];
  // Insertion into the few most similar so far; CUT is the last one's estimate once they are all taken.
  const insert = [
    ...op.localGet(COUNT), ...op.i32Const(probed), ...op.i32LtU,
    ...op.if, ...op.localGet(COUNT), ...op.localTee(AT), ...op.i32Const(1), ...op.i32Add, ...op.localSet(COUNT),
    ...op.else, ...op.i32Const(probed - 1), ...op.localSet(AT), ...op.end,
    ...op.block, ...op.loop,
    ...op.localGet(AT), ...op.i32Eqz, ...op.brIf(1),
    ...op.localGet(CENTRE), ...estimateOfProbe([...op.localGet(AT), ...op.i32Const(1), ...op.i32Sub]), ...op.f32Gt, ...op.i32Eqz, ...op.brIf(1),
    ...op.localGet(PROBES), ...op.localGet(AT), ...op.i32Const(1), ...op.i32Sub, ...op.i32Const(2), ...op.i32Shl, ...op.i32Add, ...op.i32Load, ...op.localSet(PREVIOUS),
    ...address(PROBES, AT, 2), ...op.localGet(PREVIOUS), ...op.i32Store,
    ...op.localGet(AT), ...op.i32Const(1), ...op.i32Sub, ...op.localSet(AT), ...op.br(0),
    ...op.end, ...op.end,
    ...address(PROBES, AT, 2), ...op.localGet(D), ...op.i32Store,
    ...op.localGet(COUNT), ...op.i32Const(probed), ...op.i32Eq, ...op.if, ...estimateOfProbe(op.i32Const(probed - 1)), ...op.localSet(CUT), ...op.end,
  ];
  const pick = [
    ...op.f32Const(-Infinity), ...op.localSet(CUT),
    // D is the cluster here.
    ...forD(op.localGet(CENTRES), [
      ...address(BOUNDS, D, 2), ...op.f32Load, ...op.localTee(CENTRE), ...op.localGet(CUT), ...op.f32Gt,
      ...op.if,
      ...address(STARTS, D, 2), ...op.i32LoadAt(4), ...address(STARTS, D, 2), ...op.i32Load, ...op.i32Ne,
      ...op.if, ...insert, ...op.end,
      ...op.end,
    ]),
    ...op.localGet(COUNT), ...op.if,
    ...estimateOfProbe(op.i32Const(0)), ...op.f64PromoteF32, ...op.localGet(FLOOR), ...op.f64Lt, ...op.if, ...op.i32Const(0), ...op.localSet(COUNT), ...op.end,
    ...op.end,
  ];
  return [...quantize, ...op.localGet(CENTRES), ...op.i32Eqz, ...op.if, ...op.i32Const(0), ...op.return, ...op.end, ...centres, ...pick, ...op.localGet(COUNT), ...op.end];
}

export interface ProbeKernel {
  prepare(conversation: number, query: number, results: number, centreMatrix: number, centres: number, centreScales: number, bounds: number, starts: number, probes: number, floor: number): number;
}

const modules = new Map<string, WebAssembly.Module>();

/** The kernel for conversations of `dimensions` components and up to `probed` probes, working in `memory` (a scan kernel's). */
export function probeKernel(memory: WebAssembly.Memory, dimensions: number, probed: number): ProbeKernel {
  const key = `${dimensions}/${probed}`;
  let module = modules.get(key);
  if (module === undefined) {
    const blocks = Math.ceil(dimensions / 16);
    const bytes = assembleModuleOnMemory('prepare', [I32, I32, I32, I32, I32, I32, I32, I32, I32, F64], [I32], [4, 4, I32, 4, F64, 3, F32, 2 + 2 * blocks, V128], prepareBody(dimensions, blocks, probed));
    modules.set(key, (module = new WebAssembly.Module(bytes)));
  }
  return new WebAssembly.Instance(module, { kernel: { memory } }).exports as unknown as ProbeKernel;
}

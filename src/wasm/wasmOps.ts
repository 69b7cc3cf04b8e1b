/**
 * Just enough of the WebAssembly binary format to assemble small modules at run time, no package
 * and no build step: the SIMD kernels of semantic matching (int8ScanKernel.ts, wordSumKernel.ts)
 * and the tracking token's SHA-256 compression (sha256Wasm.ts).
 */
export const I32 = 0x7f;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;

export const unsignedLeb = (value: number): number[] => {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
};

export const signedLeb = (value: number): number[] => {
  const bytes: number[] = [];
  value |= 0;
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) return [...bytes, byte];
    bytes.push(byte | 0x80);
  }
};

export const op = {
  localGet: (index: number) => [0x20, index],
  localSet: (index: number) => [0x21, index],
  localTee: (index: number) => [0x22, index],
  i32Const: (value: number) => [0x41, ...signedLeb(value)],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32Shl: [0x74],
  i32ShrU: [0x76],
  i32And: [0x71],
  i32Xor: [0x73],
  i32Eq: [0x46],
  i32LtU: [0x49],
  i32Eqz: [0x45],
  i32Load: [0x28, 2, 0],
  i32LoadAt: (offset: number) => [0x28, 2, ...unsignedLeb(offset)],
  f32LoadAt: (offset: number) => [0x2a, 2, ...unsignedLeb(offset)],
  i32Store: [0x36, 2, 0],
  i32StoreAt: (offset: number) => [0x36, 2, ...unsignedLeb(offset)],
  f32Load: [0x2a, 2, 0],
  f32Store: [0x38, 2, 0],
  f32Add: [0x92],
  f32Mul: [0x94],
  f32Ge: [0x60],
  f32ConvertI32S: [0xb2],
  f32Gt: [0x5e],
  f32DemoteF64: [0xb6],
  i32Sub: [0x6b],
  i32Ne: [0x47],
  i32Store16: [0x3b, 1, 0],
  i32TruncF64S: [0xaa],
  f64StoreAt: (offset: number) => [0x39, 3, ...unsignedLeb(offset)],
  f64Const: (value: number) => [0x44, ...new Uint8Array(Float64Array.of(value).buffer)],
  f32Const: (value: number) => [0x43, ...new Uint8Array(Float32Array.of(value).buffer)],
  f64Abs: [0x99],
  f64Max: [0xa5],
  f64Add: [0xa0],
  f64Sub: [0xa1],
  f64Mul: [0xa2],
  f64Sqrt: [0x9f],
  f64Gt: [0x64],
  f64Div: [0xa3],
  f64Floor: [0x9c],
  f64Eq: [0x61],
  f64Lt: [0x63],
  f64PromoteF32: [0xbb],
  loop: [0x03, 0x40],
  block: [0x02, 0x40],
  br: (depth: number) => [0x0c, depth],
  if: [0x04, 0x40],
  else: [0x05],
  end: [0x0b],
  return: [0x0f],
  brIf: (depth: number) => [0x0d, depth],
  simd: (opcode: number, ...immediates: number[]) => [0xfd, ...unsignedLeb(opcode), ...immediates],
};
export const v128Load = (offset: number) => op.simd(0x00, 0, ...unsignedLeb(offset));
export const v128Store = (offset: number) => op.simd(0x0b, 0, ...unsignedLeb(offset));
export const v128Zero = op.simd(0x0c, ...new Array<number>(16).fill(0));
export const i16x8ExtendLowI8x16S = op.simd(0x87);
export const i16x8ExtendHighI8x16S = op.simd(0x88);
export const i32x4ExtendLowI16x8S = op.simd(0xa7);
export const i32x4ExtendHighI16x8S = op.simd(0xa8);
export const i32x4DotI16x8S = op.simd(0xba);
export const i32x4Add = op.simd(0xae);
export const i32x4ExtractLane = (lane: number) => op.simd(0x1b, lane);
export const f32x4Splat = op.simd(0x13);
export const f32x4Add = op.simd(0xe4);
export const f32x4Mul = op.simd(0xe6);
export const f32x4ConvertI32x4S = op.simd(0xfa);

const section = (id: number, content: number[]) => [id, ...unsignedLeb(content.length), ...content];
const name = (text: string) => [...unsignedLeb(text.length), ...Buffer.from(text, 'latin1')];

/** A module of one exported function `exportName` that works in another module's memory: it imports `memory` from the import object's `kernel`. */
export function assembleModuleOnMemory(exportName: string, params: number[], results: number[], locals: number[], body: number[]): Uint8Array<ArrayBuffer> {
  const code = [...locals, ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, params.length, ...params, results.length, ...results]),
    ...section(2, [1, ...name('kernel'), ...name('memory'), 0x02, 0, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name(exportName), 0x00, 0]),
    ...section(10, [1, ...unsignedLeb(code.length), ...code]),
  ]);
}

/** A module of one exported function `exportName` and an exported memory of one page (grow it to fit). */
export function assembleModule(exportName: string, params: number[], results: number[], locals: number[], body: number[]): Uint8Array<ArrayBuffer> {
  const code = [...locals, ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, params.length, ...params, results.length, ...results]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('memory'), 0x02, 0, ...name(exportName), 0x00, 0]),
    ...section(10, [1, ...unsignedLeb(code.length), ...code]),
  ]);
}

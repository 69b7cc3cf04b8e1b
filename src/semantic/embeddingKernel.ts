/**
 * A WebAssembly SIMD kernel that adds weighted int8 word vectors into a float32 sum: the inner loop
 * of a conversation's embedding (SemanticModel.addScan). Plain JS does about one component per
 * 1.6 ns, a third of every serve that finds an ad (the brand-safety check embeds its conversation);
 * this does four at a time. Assembled here for the vectors' width, like int8ScanKernel.ts.
 *
 * addRows(rows, factors, count, sum): for each of `count` words, the int32 byte offset of its row
 * at `rows` and its float32 factor at `factors` (both advance by 4 bytes a word), it adds
 * row x factor to the `dimensions` float32 components at `sum`. Products and sums are rounded to
 * float32 at each step (JS rounded the product's sum only): the vectors differ by about 1e-7.
 */
const I32 = 0x7f;
const V128 = 0x7b;

const [ROWS, FACTORS, COUNT, SUM] = [0, 1, 2, 3];
const [BASE, FACTOR] = [4, 5];

const unsignedLeb = (value: number): number[] => {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
};

const localGet = (index: number) => [0x20, index];
const localSet = (index: number) => [0x21, index];
const localTee = (index: number) => [0x22, index];
const i32Const = (value: number) => [0x41, ...unsignedLeb(value)];
const i32Load = [0x28, 2, 0];
const f32Load = [0x2a, 2, 0];
const i32Add = [0x6a];
const i32Sub = [0x6b];
const i32Eqz = [0x45];
const simd = (opcode: number, ...immediates: number[]) => [0xfd, ...unsignedLeb(opcode), ...immediates];
// Memory operands: alignment hint 0 (rows start at any byte), then the constant offset.
const v128Load = (offset: number) => simd(0x00, 0, ...unsignedLeb(offset));
const v128Store = (offset: number) => simd(0x0b, 0, ...unsignedLeb(offset));
const v128Load8x8S = (offset: number) => simd(0x01, 0, ...unsignedLeb(offset));
const v128Load32Zero = (offset: number) => simd(0x5c, 0, ...unsignedLeb(offset));
const f32x4Splat = simd(0x13);
const i16x8ExtendLowI8x16S = simd(0x87);
const i32x4ExtendLowI16x8S = simd(0xa7);
const i32x4ExtendHighI16x8S = simd(0xa8);
const f32x4ConvertI32x4S = simd(0xfa);
const f32x4Add = simd(0xe4);
const f32x4Mul = simd(0xe6);

/** sum[first..first+3] += float(the four int32 lanes on the stack's top) x factor. */
function addFour(first: number, lanes: number[]): number[] {
  return [
    ...localGet(SUM),
    ...localGet(SUM), ...v128Load(4 * first),
    ...lanes, ...f32x4ConvertI32x4S, ...localGet(FACTOR), ...f32x4Mul,
    ...f32x4Add,
    ...v128Store(4 * first),
  ];
}

function addRowsBody(dimensions: number): number[] {
  // Unrolled over the row: eight components per load, then four for the rest.
  const row: number[] = [];
  let first = 0;
  for (; first + 8 <= dimensions; first += 8) {
    const eight = [...localGet(BASE), ...v128Load8x8S(first)];
    row.push(...addFour(first, [...eight, ...i32x4ExtendLowI16x8S]), ...addFour(first + 4, [...eight, ...i32x4ExtendHighI16x8S]));
  }
  if (first < dimensions) row.push(...addFour(first, [...localGet(BASE), ...v128Load32Zero(first), ...i16x8ExtendLowI8x16S, ...i32x4ExtendLowI16x8S]));
  return [
    ...localGet(COUNT), ...i32Eqz, 0x04, 0x40, 0x0f, 0x0b, // if (count == 0) return
    0x03, 0x40, // loop
    ...localGet(ROWS), ...i32Load, ...localSet(BASE),
    ...localGet(FACTORS), ...f32Load, ...f32x4Splat, ...localSet(FACTOR),
    ...row,
    ...localGet(ROWS), ...i32Const(4), ...i32Add, ...localSet(ROWS),
    ...localGet(FACTORS), ...i32Const(4), ...i32Add, ...localSet(FACTORS),
    ...localGet(COUNT), ...i32Const(1), ...i32Sub, ...localTee(COUNT),
    0x0d, 0, // br_if 0 while count != 0
    0x0b, // end loop
    0x0b, // end function
  ];
}

const section = (id: number, content: number[]) => [id, ...unsignedLeb(content.length), ...content];
const name = (text: string) => [...unsignedLeb(text.length), ...Buffer.from(text, 'latin1')];

function assemble(dimensions: number): Uint8Array<ArrayBuffer> {
  const locals = [2, 1, I32, 1, V128];
  const body = [...locals, ...addRowsBody(dimensions)];
  const params = [I32, I32, I32, I32];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, params.length, ...params, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('memory'), 0x02, 0, ...name('addRows'), 0x00, 0]),
    ...section(10, [1, ...unsignedLeb(body.length), ...body]),
  ]);
}

export interface EmbeddingKernel {
  memory: WebAssembly.Memory;
  addRows(rows: number, factors: number, count: number, sum: number): void;
}

/** A kernel with its own memory (grow it to fit) for rows of `dimensions` int8 components; a multiple of 4. */
export function embeddingKernel(dimensions: number): EmbeddingKernel {
  if (dimensions % 4 !== 0) throw new Error(`the embedding kernel adds four components at a time: ${dimensions} dimensions`);
  return new WebAssembly.Instance(new WebAssembly.Module(assemble(dimensions))).exports as unknown as EmbeddingKernel;
}

/**
 * SHA-256's compression function (FIPS 180-4, 6.2.2) as a small WebAssembly module, written out
 * here instruction by instruction: the 64 rounds unrolled, the working variables renamed instead
 * of moved, the message schedule in 16 rolling locals. The tracking token's HMAC hashes 4-5 blocks
 * per serve and per pixel; in JS a block took about 0.7 us on the bench VM, here about a third of
 * that (hmacSha256.ts; its unit test checks every result against node's createHmac).
 *
 * Memory (one 64 KiB page): the hash state at byte 0 (eight 32-bit words, little-endian as the
 * host reads an Int32Array), the message blocks from byte BLOCKS_OFFSET. `compress(count)` runs
 * `count` consecutive blocks into the state.
 */
import { assembleModule, I32, signedLeb, unsignedLeb } from '../wasm/wasmOps.js';

export const BLOCKS_OFFSET = 64;
/** Room for the longest message hashed in one call: the token's claims and their padding. */
export const MAX_BLOCKS = (65536 - BLOCKS_OFFSET) / 64;

interface Sha256Wasm {
  compress(count: number): void;
  memory: WebAssembly.Memory;
}

const ROUND_CONSTANTS = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

// The opcodes used (WebAssembly core specification, 5.4).
const LOOP = 0x03;
const END = 0x0b;
const BR_IF = 0x0d;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_LOAD = 0x28;
const I32_STORE = 0x36;
const I32_CONST = 0x41;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_AND = 0x71;
const I32_OR = 0x72;
const I32_XOR = 0x73;
const I32_SHR_U = 0x76;
const I32_ROTL = 0x77;
const I32_ROTR = 0x78;
const VOID_BLOCK = 0x40;

// Locals: the parameter (blocks left), then the working variables, the schedule and scratch.
const COUNT = 0;
const VARIABLES = 1; // a..h: 1..8
const SCHEDULE = 9; // w[0..15]: 9..24
const T1 = 25;
const WORD = 26;
const POINTER = 27;
const LOCALS = 27;

/** The body of `compress`, as instructions. */
function compressBody(): number[] {
  const code: number[] = [];
  const get = (local: number) => code.push(LOCAL_GET, local);
  const set = (local: number) => code.push(LOCAL_SET, local);
  const constant = (value: number) => code.push(I32_CONST, ...signedLeb(value));
  const op = (...ops: number[]) => code.push(...ops);
  /** x rotated right by each of `amounts`, xored; then x >>> shift when given (the sigma functions). */
  const sigma = (local: number, amounts: number[], shift?: number) => {
    amounts.forEach((amount, index) => {
      get(local);
      constant(amount);
      op(I32_ROTR);
      if (index > 0) op(I32_XOR);
    });
    if (shift !== undefined) {
      get(local);
      constant(shift);
      op(I32_SHR_U, I32_XOR);
    }
  };
  const load = (local: number, offset: number) => {
    get(POINTER);
    op(I32_LOAD, 2, ...unsignedLeb(offset));
    set(local);
  };

  constant(BLOCKS_OFFSET);
  set(POINTER);
  op(LOOP, VOID_BLOCK);
  for (let i = 0; i < 8; i++) {
    constant(0);
    op(I32_LOAD, 2, ...unsignedLeb(4 * i));
    set(VARIABLES + i);
  }
  for (let round = 0; round < 64; round++) {
    /** The local holding working variable `role` (0 = a ... 7 = h) in this round: renamed, never moved. */
    const v = (role: number) => VARIABLES + ((((role - round) % 8) + 8) % 8);
    const w = SCHEDULE + (round % 16);
    if (round < 16) {
      // The message word, big-endian: a little-endian load with its bytes swapped.
      load(WORD, 4 * round);
      get(WORD);
      constant(8);
      op(I32_ROTL);
      constant(0x00ff00ff);
      op(I32_AND);
      get(WORD);
      constant(8);
      op(I32_ROTR);
      constant(0xff00ff00 | 0);
      op(I32_AND, I32_OR);
      set(w);
    } else {
      // w[t] = sigma1(w[t-2]) + w[t-7] + sigma0(w[t-15]) + w[t-16], the last one in w's own slot.
      sigma(SCHEDULE + ((round - 2) % 16), [17, 19], 10);
      get(SCHEDULE + ((round - 7) % 16));
      op(I32_ADD);
      sigma(SCHEDULE + ((round - 15) % 16), [7, 18], 3);
      op(I32_ADD);
      get(w);
      op(I32_ADD);
      set(w);
    }
    const [a, b, c, d, e, f, g, h] = [0, 1, 2, 3, 4, 5, 6, 7].map(v) as [number, number, number, number, number, number, number, number];
    // t1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + w[t], with Ch = g ^ (e & (f ^ g)).
    get(h);
    sigma(e, [6, 11, 25]);
    op(I32_ADD);
    get(g);
    get(e);
    get(f);
    get(g);
    op(I32_XOR, I32_AND, I32_XOR, I32_ADD);
    constant(ROUND_CONSTANTS[round]!);
    op(I32_ADD);
    get(w);
    op(I32_ADD);
    code.push(LOCAL_TEE, T1);
    // d += t1: d is the next round's e.
    get(d);
    op(I32_ADD);
    set(d);
    // h = t1 + Sigma0(a) + Maj(a, b, c), with Maj = (a & b) | (c & (a | b)): h is the next round's a.
    get(T1);
    sigma(a, [2, 13, 22]);
    op(I32_ADD);
    get(a);
    get(b);
    op(I32_AND);
    get(c);
    get(a);
    get(b);
    op(I32_OR, I32_AND, I32_OR, I32_ADD);
    set(h);
  }
  // After 64 rounds (a multiple of 8) every variable is back in its own local.
  for (let i = 0; i < 8; i++) {
    constant(0);
    constant(0);
    op(I32_LOAD, 2, ...unsignedLeb(4 * i));
    get(VARIABLES + i);
    op(I32_ADD, I32_STORE, 2, ...unsignedLeb(4 * i));
  }
  get(POINTER);
  constant(64);
  op(I32_ADD);
  set(POINTER);
  get(COUNT);
  constant(1);
  op(I32_SUB);
  code.push(LOCAL_TEE, COUNT);
  op(BR_IF, 0, END);
  op(END);
  return code;
}

/** The module's bytes: `compress(count)` and the memory, both exported; LOCALS i32 locals after the parameter. */
function sha256WasmBytes(): Uint8Array<ArrayBuffer> {
  return assembleModule('compress', [I32], [], [1, ...unsignedLeb(LOCALS), I32], compressBody());
}

export function instantiateSha256Wasm(): Sha256Wasm {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(sha256WasmBytes()));
  const exports = instance.exports as unknown as { compress: (count: number) => void; memory: WebAssembly.Memory };
  return { compress: exports.compress, memory: exports.memory };
}

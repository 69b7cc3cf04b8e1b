import { createHash } from 'node:crypto';

/**
 * HMAC-SHA256 (RFC 2104, FIPS 180-4) in plain JS, for the tracking token: node's `createHmac`
 * costs about 3 us per serve on the bench VM, almost all of it creating the native object, where
 * hashing the token's 4-5 blocks here takes about 1.7 us. The key's two pad blocks are hashed
 * once per secret (HmacKey), so a token costs only its own blocks and the outer one. The unit test
 * checks every result against `createHmac`, for every message length up to three blocks and more.
 *
 * Only 32-bit additions, shifts and bitwise operations on the data: no table is indexed by a
 * secret or a message byte, so the time taken depends on the message's length alone.
 */

const ROUND_CONSTANTS = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL_STATE = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
const BLOCK_BYTES = 64;
export const HMAC_SHA256_BYTES = 32;

// Scratch space: hashing is synchronous, so one set serves every call.
const schedule = new Int32Array(64);
const state = new Int32Array(8);
const lastBlocks = new Uint8Array(2 * BLOCK_BYTES);
const innerDigest = new Uint8Array(HMAC_SHA256_BYTES);

/** One SHA-256 compression of the 64 bytes of `bytes` at `offset` into `hash`. */
function compress(hash: Int32Array, bytes: Uint8Array, offset: number): void {
  const w = schedule;
  for (let i = 0; i < 16; i++) {
    const at = offset + 4 * i;
    w[i] = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!;
    const y = w[i - 2]!;
    const s0 = (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) | 0;
    const s1 = (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) | 0;
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = hash[0]!;
  let b = hash[1]!;
  let c = hash[2]!;
  let d = hash[3]!;
  let e = hash[4]!;
  let f = hash[5]!;
  let g = hash[6]!;
  let h = hash[7]!;
  for (let i = 0; i < 64; i++) {
    // Every partial sum kept to 32 bits (| 0), and choice and majority in their shorter forms
    // (g ^ (e & (f ^ g)), (a & b) ^ (c & (a ^ b))): V8 then stays in 32-bit integers, 20% faster.
    const s1 = (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) | 0;
    const t1 = (((h + s1) | 0) + (((g ^ (e & (f ^ g))) + ((ROUND_CONSTANTS[i]! + w[i]!) | 0)) | 0)) | 0;
    const s0 = (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) | 0;
    const t2 = (s0 + ((a & b) ^ (c & (a ^ b)))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  hash[0] = (hash[0]! + a) | 0;
  hash[1] = (hash[1]! + b) | 0;
  hash[2] = (hash[2]! + c) | 0;
  hash[3] = (hash[3]! + d) | 0;
  hash[4] = (hash[4]! + e) | 0;
  hash[5] = (hash[5]! + f) | 0;
  hash[6] = (hash[6]! + g) | 0;
  hash[7] = (hash[7]! + h) | 0;
}

/**
 * SHA-256 of one block already hashed into `start` followed by bytes[0, length), written to
 * out[outOffset, outOffset + 32).
 */
function finishAfterOneBlock(start: Int32Array, bytes: Uint8Array, length: number, out: Uint8Array, outOffset: number): void {
  state.set(start);
  let offset = 0;
  for (; offset + BLOCK_BYTES <= length; offset += BLOCK_BYTES) compress(state, bytes, offset);
  // The rest, a 1 bit, zeros, and the message's length in bits (64-bit big-endian) end the message.
  const rest = length - offset;
  const tail = rest + 9 <= BLOCK_BYTES ? BLOCK_BYTES : 2 * BLOCK_BYTES;
  lastBlocks.fill(0);
  lastBlocks.set(bytes.subarray(offset, length));
  lastBlocks[rest] = 0x80;
  const bits = (BLOCK_BYTES + length) * 8;
  lastBlocks[tail - 5] = Math.floor(bits / 2 ** 32);
  lastBlocks[tail - 4] = bits >>> 24;
  lastBlocks[tail - 3] = bits >>> 16;
  lastBlocks[tail - 2] = bits >>> 8;
  lastBlocks[tail - 1] = bits;
  compress(state, lastBlocks, 0);
  if (tail > BLOCK_BYTES) compress(state, lastBlocks, BLOCK_BYTES);
  for (let i = 0; i < 8; i++) {
    const word = state[i]!;
    const at = outOffset + 4 * i;
    out[at] = word >>> 24;
    out[at + 1] = word >>> 16;
    out[at + 2] = word >>> 8;
    out[at + 3] = word;
  }
}

/** A secret with its inner and outer pad blocks already hashed. */
export interface HmacKey {
  readonly inner: Int32Array;
  readonly outer: Int32Array;
}

export function hmacSha256Key(key: Uint8Array): HmacKey {
  // A key longer than a block is replaced by its hash (RFC 2104); once per secret, so node's own.
  const block = new Uint8Array(BLOCK_BYTES);
  block.set(key.length > BLOCK_BYTES ? createHash('sha256').update(key).digest() : key);
  const padded = (pad: number) => {
    const hash = INITIAL_STATE.slice();
    compress(hash, block.map((byte) => byte ^ pad), 0);
    return hash;
  };
  return { inner: padded(0x36), outer: padded(0x5c) };
}

/** HMAC-SHA256 of bytes[0, length) under `key`, written to out[outOffset, outOffset + 32). */
export function hmacSha256(key: HmacKey, bytes: Uint8Array, length: number, out: Uint8Array, outOffset: number): void {
  finishAfterOneBlock(key.inner, bytes, length, innerDigest, 0);
  finishAfterOneBlock(key.outer, innerDigest, HMAC_SHA256_BYTES, out, outOffset);
}

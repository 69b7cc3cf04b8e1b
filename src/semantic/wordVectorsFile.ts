import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NO_STAMP, stampedAfter, stampOf } from '../fileStamp.js';
import { packageRoot } from '../packageRoot.js';

/** Where the build writes the compact vectors and where the service looks for them by default. */
export const DEFAULT_WORD_VECTORS_PATH = path.join(packageRoot, 'dist', 'word-vectors.bin');

const MAGIC = 'ADSVEC01';
const HEADER_BYTES = 16;

/**
 * Word vectors as the service keeps them: int8 components with one float32 scale per word (about
 * 10 MB for 100,000 words x 100 dimensions), words in frequency order (their rank gives the SIF
 * weight), and the common direction that SIF removes from every text vector.
 */
export interface WordVectors {
  dimensions: number;
  /** Words, most frequent first. */
  words: string[];
  /** words.length x dimensions, int8. */
  components: Int8Array;
  /** Per word: component x scale is the original value. */
  scales: Float32Array;
  /** Unit vector: the first principal component of frequent words' weighted vectors. */
  commonDirection: Float32Array;
  /**
   * The sha256 of the file they were read from (undefined for vectors made in memory): what the
   * line items' vectors kept in the catalog snapshot were embedded with (semanticSnapshot.ts).
   */
  fingerprint?: string;
}

/**
 * File layout (little-endian): "ADSVEC01", uint32 word count, uint32 dimensions, then the float32
 * common direction, the float32 scales, the int8 components, and the words as UTF-8 joined by "\n".
 */
export function encodeWordVectors(vectors: WordVectors): Buffer {
  const count = vectors.words.length;
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(count, 8);
  header.writeUInt32LE(vectors.dimensions, 12);
  return Buffer.concat([
    header,
    Buffer.from(vectors.commonDirection.buffer, vectors.commonDirection.byteOffset, vectors.commonDirection.byteLength),
    Buffer.from(vectors.scales.buffer, vectors.scales.byteOffset, vectors.scales.byteLength),
    Buffer.from(vectors.components.buffer, vectors.components.byteOffset, vectors.components.byteLength),
    Buffer.from(vectors.words.join('\n'), 'utf8'),
  ]);
}

/** `fingerprint`: the file's sha256 when the caller knows it (the build recorded it, readWordVectors), else computed here. */
export function decodeWordVectors(file: Buffer, fingerprint?: string): WordVectors {
  if (file.length < HEADER_BYTES || file.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a word vectors file');
  const count = file.readUInt32LE(8);
  const dimensions = file.readUInt32LE(12);
  let at = HEADER_BYTES;
  const floats = (length: number) => {
    const copy = new Float32Array(length);
    new Uint8Array(copy.buffer).set(file.subarray(at, at + length * 4));
    at += length * 4;
    return copy;
  };
  const commonDirection = floats(dimensions);
  const scales = floats(count);
  const components = new Int8Array(count * dimensions);
  new Uint8Array(components.buffer).set(file.subarray(at, at + count * dimensions));
  at += count * dimensions;
  const words = file.toString('utf8', at).split('\n');
  if (words.length !== count) throw new Error(`word vectors file is truncated: ${words.length} of ${count} words`);
  return { dimensions, words, components, scales, commonDirection, fingerprint: fingerprint ?? sha256Of(file) };
}

/** The vectors at `file`, or undefined when there is no such file (semantic matching is then off). */
export function readWordVectors(file: string): WordVectors | undefined {
  if (!existsSync(file)) return undefined;
  return decodeWordVectors(readFileSync(file), stampedFingerprintOf(file));
}

/**
 * Beside the vectors file, `npm run build` keeps its stamp (fileStamp.ts) and its sha256, so that
 * a start whose file still has that stamp takes the fingerprint without hashing its 11 MB; any
 * other stamp (the file written again, copied, installed again) and the file is hashed.
 */
const fingerprintFileOf = (file: string) => `${file}.sha256`;
const STAMP_CONTEXT = 'adsvc word vectors\0';

function sha256Of(file: Buffer): string {
  return createHash('sha256').update(file).digest('hex');
}

/** The file's sha256 as the build recorded it, when the file still has the stamp it had then. */
function stampedFingerprintOf(file: string): string | undefined {
  let recorded: Buffer;
  try {
    recorded = readFileSync(fingerprintFileOf(file));
  } catch {
    return undefined;
  }
  if (recorded.length !== 64 || !recorded.subarray(0, 32).equals(stampOf([file], STAMP_CONTEXT))) return undefined;
  return recorded.toString('hex', 32);
}

/** How often a build looks again at a file too new to be stamped. */
const STAMP_POLL_MS = 100;

/**
 * `npm run build`: records the file's stamp and sha256 beside it, unless they are recorded already.
 * A file changed within stampedAfter (the first build has just written it) has no stamp yet: the
 * build waits until it has one (up to about 2 s, once), so that a fresh clone's first start takes
 * the fingerprint too. Taken that late, the stamp stays safe: a change after it sets the change
 * time past the file system's resolution. A file still changing past the wait is left unrecorded.
 */
export async function recordWordVectorsFingerprint(file: string): Promise<void> {
  if (stampedFingerprintOf(file) !== undefined) return;
  const giveUpAt = Date.now() + stampedAfter.ms + 1_000;
  let stamp = stampOf([file], STAMP_CONTEXT, Date.now());
  while (stamp.equals(NO_STAMP) && Date.now() < giveUpAt) {
    await sleep(STAMP_POLL_MS);
    stamp = stampOf([file], STAMP_CONTEXT, Date.now());
  }
  if (stamp.equals(NO_STAMP)) return;
  // Read after the stamp: a write in between changes the stamp, and a start then hashes the file.
  writeFileSync(`${fingerprintFileOf(file)}.tmp`, Buffer.concat([stamp, Buffer.from(sha256Of(readFileSync(file)), 'hex')]));
  renameSync(`${fingerprintFileOf(file)}.tmp`, fingerprintFileOf(file));
}

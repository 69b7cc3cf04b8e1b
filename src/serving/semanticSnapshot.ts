import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { packVectors } from '../semantic/packedVectors.js';
import type { StoredClusters } from '../semantic/semanticMatrix.js';
import type { SemanticModel } from '../semantic/semanticModel.js';

/**
 * What a start needs to give the catalog snapshot's line items their semantic matching without
 * embedding or clustering anything again: 9-10 s of a start at 100,000 opted-in line items, 7 of
 * them the k-means (bench/README.md, "Semantic at 100,000 line items: session 34").
 */
export interface StoredSemantic {
  /** By line item row of the base: its vector; undefined when it has none (not opted in, no known word, not servable). */
  vectors: Array<Float32Array | undefined>;
  /** The semantic lists' clusters, when clustered (SemanticMatrix.storedClusters). */
  clusters: Partial<Record<SemanticList, StoredClusters>>;
}

type SemanticList = (typeof LISTS)[number];

const LISTS = ['certified', 'uncertified'] as const;
const FORMAT = 'adsvc semantic snapshot 1';

/** The first line of the file (after the CRC-32 of its JSON); the binary sections follow from the next multiple of 4 bytes. */
interface Header {
  /** The catalog snapshot base whose line item rows these vectors are of. */
  base: string;
  /** What the vectors were embedded with (semanticKey). */
  key: string;
  dimensions: number;
  /** The base's line item rows, and how many of them have a vector. */
  rows: number;
  count: number;
  /** Per clustered list: its centres and how many rows they were trained on. */
  clusters: Partial<Record<SemanticList, { centres: number; trainedRows: number }>>;
  /** The sections' bytes and their CRC-32. */
  bytes: number;
  checksum: number;
}

let codeKey: Promise<string> | undefined;

/**
 * What a line item's vector depends on besides its row: the word vectors (the file's sha256), the
 * code that embeds (every file of src/semantic, the word scan of contextWords), the code that says
 * what is embedded (adIndex's semanticTarget picks the keywords and creatives, creativeGroups and
 * the destination check say which creatives are servable: an upgrade that changes any of them embeds
 * again, rather than matching by vectors made of other texts) and the byte order the floats are
 * kept in. Undefined for a model made in memory (no file to name). A vector kept under another key is
 * never read: a new vectors file or embedding code embeds again.
 */
export async function semanticKey(model: SemanticModel): Promise<string | undefined> {
  if (model.fingerprint === undefined) return undefined;
  codeKey ??= hashOfCode();
  return createHash('sha256').update(`${FORMAT}\0${endianness()}\0${model.fingerprint}\0${await codeKey}`).digest('hex');
}

async function hashOfCode(): Promise<string> {
  const hash = createHash('sha256');
  const semanticFolder = fileURLToPath(new URL('../semantic/', import.meta.url));
  const servingFolder = fileURLToPath(new URL('./', import.meta.url));
  const files = [
    ...(await readdir(semanticFolder)).filter((name) => /\.[jt]s$/.test(name)).sort().map((name) => semanticFolder + name),
    ...(await readdir(servingFolder)).filter((name) => /^(contextWords|destinationHost|adIndex|creativeGroups)\.[jt]s$/.test(name)).sort().map((name) => servingFolder + name),
  ];
  for (const file of files) hash.update(`${file.slice(file.lastIndexOf('/') + 1)}\0`).update(await readFile(file)).update('\0');
  return hash.digest('hex');
}

/** The file's bytes: its header line, padding to a multiple of 4, then each row's index, the vectors, and per clustered list its centres and each vector's cluster. */
export function encodeSemantic(base: string, key: string, dimensions: number, stored: StoredSemantic): Buffer[] {
  const rows: number[] = [];
  stored.vectors.forEach((vector, row) => {
    if (vector !== undefined) rows.push(row);
  });
  const sections: Buffer[] = [bytesOf(Int32Array.from(rows)), bytesOf(packVectors(rows.map((row) => stored.vectors[row]!), dimensions))];
  const clusters: Header['clusters'] = {};
  for (const list of LISTS) {
    const kept = stored.clusters[list];
    if (!kept) continue;
    clusters[list] = { centres: kept.centres.length, trainedRows: kept.trainedRows };
    sections.push(bytesOf(packVectors(kept.centres, dimensions)), bytesOf(Int32Array.from(rows, (row) => kept.clusterOfRow[row]!)));
  }
  let checksum = 0;
  for (const section of sections) checksum = crc32(section, checksum);
  const bytes = sections.reduce((sum, section) => sum + section.length, 0);
  const header: Header = { base, key, dimensions, rows: stored.vectors.length, count: rows.length, clusters, bytes, checksum };
  const json = JSON.stringify(header);
  const line = `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
  const headerBytes = Buffer.alloc(Math.ceil(Buffer.byteLength(line) / 4) * 4);
  headerBytes.write(line);
  return [headerBytes, ...sections];
}

/**
 * The vectors and clusters of a file encodeSemantic wrote, when it is of the base `base`, with
 * `rows` line item rows, under `key`; else why not (another base, key or size, damaged bytes).
 * The vectors are views of the file's buffer, which they keep.
 */
export function decodeSemantic(file: Buffer, base: string, key: string, rows: number): StoredSemantic | string {
  const end = file.indexOf(0x0a);
  const json = end < 9 ? '' : file.toString('utf8', 9, end);
  if (end < 9 || file.toString('latin1', 0, 8) !== crc32(json).toString(16).padStart(8, '0')) return 'its header does not match its checksum';
  const header = JSON.parse(json) as Header;
  if (header.base !== base) return 'it is of another base';
  if (header.key !== key) return 'it was embedded with other word vectors or other code';
  const { dimensions, count } = header;
  if (header.rows !== rows || !(count <= rows)) return 'it has another number of line items';
  const at = Math.ceil((end + 1) / 4) * 4;
  const body = file.subarray(at);
  if (body.length !== header.bytes || crc32(body) !== header.checksum) return 'its sections do not match their checksum';
  // Typed views need 4-byte alignment: a buffer that does not start on it (a pooled one) is copied once.
  const aligned = body.byteOffset % 4 === 0 ? body : new Uint8Array(body);
  let offset = aligned.byteOffset;
  const take = <T>(make: (buffer: ArrayBuffer, offset: number, length: number) => T, length: number): T => {
    const view = make(aligned.buffer as ArrayBuffer, offset, length);
    offset += length * 4;
    return view;
  };
  const rowOf = take((buffer, start, length) => new Int32Array(buffer, start, length), count);
  const vectorsAt = offset;
  offset += count * dimensions * 4;
  const vectors = new Array<Float32Array | undefined>(rows).fill(undefined);
  for (let i = 0; i < count; i++) {
    const row = rowOf[i]!;
    if (!(row >= 0 && row < rows) || vectors[row] !== undefined) return 'its rows do not match the base';
    vectors[row] = new Float32Array(aligned.buffer, vectorsAt + i * dimensions * 4, dimensions);
  }
  const clusters: StoredSemantic['clusters'] = {};
  for (const list of LISTS) {
    const kept = header.clusters[list];
    if (!kept) continue;
    const centres = Array.from({ length: kept.centres }, () => take((buffer, start, length) => new Float32Array(buffer, start, length), dimensions));
    const clusterOf = take((buffer, start, length) => new Int32Array(buffer, start, length), count);
    const clusterOfRow = new Int32Array(rows).fill(-1);
    for (let i = 0; i < count; i++) {
      if (!(clusterOf[i]! >= -1 && clusterOf[i]! < kept.centres)) return 'a line item is in a cluster there is not';
      clusterOfRow[rowOf[i]!] = clusterOf[i]!;
    }
    clusters[list] = { centres, trainedRows: kept.trainedRows, clusterOfRow };
  }
  return { vectors, clusters };
}

function bytesOf(array: Int32Array | Float32Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_STAMP, stampOf } from '../fileStamp.js';

/**
 * Tables that take a second of CSV scanning to build (the country and network address ranges, on
 * the second core while a start decodes the catalog and builds the ad index on the first), built
 * once by `npm run build` into a file that a start reads instead. The file is keyed on everything
 * the tables are built from: the source files' content, the content of the code that builds them
 * and the machine's byte order. A file that is missing, keyed otherwise (another package version,
 * changed code) or damaged is not read: the tables are built from the sources, as before, and the
 * caller is told why so that the start can log it.
 *
 * Computing the key reads and hashes 56 MB of CSV files, 0.1-0.15 s of a start's CPU beside the
 * main thread's index build (session 34's profile). So the file also carries the files' stamp
 * (fileStamp.ts): their size, times and inode as `npm run build` found them. A start whose files still
 * have that stamp reads the tables without hashing the sources; a file whose stamp differs (an
 * updated package, changed code, a copied installation) is checked by its content as before.
 */
export interface PrebuiltTables<Tables> {
  /** In log lines: "the country tables". */
  name: string;
  file: URL;
  /** The files the tables are built from. */
  sources: readonly string[];
  /** The folders of the code that builds them (every .js and .ts file in them). */
  code: readonly URL[];
  build(): Tables;
  /** The tables as JSON values and Uint32Arrays, which the file keeps as they are in memory. */
  stored(tables: Tables): unknown;
  /** The tables again from what stored() gave, read back from a file this code wrote. */
  fromStored(stored: unknown): Tables;
}

/**
 * File layout: "ADSTAB02"; the key (32 bytes, sha256); the stamp (32 bytes, zero when none); the
 * sha256 of everything after it; a uint32 (little-endian) byte length and the stored value as JSON,
 * each Uint32Array replaced by {"u32":[byte offset, length]} into the arrays that follow the JSON
 * (padded to 4 bytes).
 */
const MAGIC = 'ADSTAB02';
const KEY_AT = 8;
const STAMP_AT = 40;
const CHECKSUM_AT = 72;
const BODY_AT = 104;
const FORMAT = 'adsvc prebuilt tables 2';

/**
 * The tables, read from their file when it is current, else built from their sources;
 * `onBuilt` is told why they were built (missing, stale or damaged file).
 */
export function loadPrebuiltTables<Tables>(tables: PrebuiltTables<Tables>, onBuilt?: (why: string) => void): Tables {
  const path = fileURLToPath(tables.file);
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch (error) {
    onBuilt?.(`${tables.name} built from their CSV files: ${path} cannot be read (${(error as NodeJS.ErrnoException).code}; npm run build writes it)`);
    return tables.build();
  }
  const problem = problemOf(file, () => builtFromCurrentFiles(file, tables));
  if (problem !== undefined) {
    onBuilt?.(`${tables.name} built from their CSV files: ${path} ${problem}`);
    return tables.build();
  }
  return tables.fromStored(decodeStored(file));
}

/**
 * `npm run build`: writes the tables' file unless it is current; true when it wrote it. A file
 * whose key is current but not its stamp (the files installed again, copied) keeps its tables and
 * gets the files' stamp.
 */
export function writePrebuiltTables<Tables>(tables: PrebuiltTables<Tables>): boolean {
  // Taken before the files are read for the key: a file changed meanwhile has another stamp at the next start.
  const stamp = stampOfFiles(tables, Date.now());
  const key = keyOf(tables);
  const path = fileURLToPath(tables.file);
  let file: Buffer | undefined;
  try {
    file = readFileSync(path);
  } catch {
    // Not there yet.
  }
  let body: Buffer;
  if (file && problemOf(file, () => file.subarray(KEY_AT, STAMP_AT).equals(key)) === undefined) {
    if (file.subarray(STAMP_AT, CHECKSUM_AT).equals(stamp)) return false;
    body = file.subarray(CHECKSUM_AT);
  } else {
    body = encodeStored(tables.stored(tables.build()));
  }
  writeFileSync(`${path}.tmp`, Buffer.concat([Buffer.from(MAGIC, 'latin1'), key, stamp, body]));
  renameSync(`${path}.tmp`, path);
  return true;
}

/**
 * Whether the file was built from the files as they are now: they have the stamp it was built
 * with, else their content gives its key.
 */
function builtFromCurrentFiles(file: Buffer, tables: PrebuiltTables<unknown>): boolean {
  const stamp = file.subarray(STAMP_AT, CHECKSUM_AT);
  return (!stamp.equals(NO_STAMP) && stamp.equals(stampOfFiles(tables))) || file.subarray(KEY_AT, STAMP_AT).equals(keyOf(tables));
}

/** Why the file cannot be read as these tables (`current` tells whether their files are those it was built from), or undefined when it can. */
function problemOf(file: Buffer, current: () => boolean): string | undefined {
  if (file.length < BODY_AT + 4 || file.toString('latin1', 0, KEY_AT) !== MAGIC) return 'is not a tables file';
  if (!current()) return 'is stale (built from other source files or by other code; npm run build rewrites it)';
  if (!createHash('sha256').update(file.subarray(BODY_AT)).digest().equals(file.subarray(CHECKSUM_AT, BODY_AT))) return 'is damaged (its checksum does not match)';
  return undefined;
}

/** Every .js and .ts file of the folders of the code that builds the tables, in order. */
function codeFilesOf(tables: PrebuiltTables<unknown>): string[] {
  return tables.code.flatMap((folder) => {
    const directory = fileURLToPath(folder);
    return readdirSync(directory)
      .filter((name) => /\.[jt]s$/.test(name))
      .sort()
      .map((name) => join(directory, name));
  });
}

/** sha256 of the format, the byte order, the code's files and the sources' content. */
function keyOf(tables: PrebuiltTables<unknown>): Buffer {
  const hash = createHash('sha256').update(`${FORMAT}\0${endianness()}\0`);
  for (const file of codeFilesOf(tables)) hash.update(`${basename(file)}\0`).update(readFileSync(file)).update('\0');
  for (const source of tables.sources) hash.update(readFileSync(source)).update('\0');
  return hash.digest();
}

/** The stamp of the code's files and the sources (fileStamp.ts); at build time (`now`) none for a file changed just before. */
function stampOfFiles(tables: PrebuiltTables<unknown>, now?: number): Buffer {
  return stampOf([...codeFilesOf(tables), ...tables.sources], `${FORMAT}\0${endianness()}\0`, now);
}

/** From the checksum on: the sha256 of the body, then the body (the JSON and the arrays). */
function encodeStored(stored: unknown): Buffer {
  const arrays: Uint32Array[] = [];
  let arrayBytes = 0;
  const json = JSON.stringify(stored, (_, value: unknown) => {
    if (!(value instanceof Uint32Array)) return value;
    arrays.push(value);
    arrayBytes += value.byteLength;
    return { u32: [arrayBytes - value.byteLength, value.length] };
  });
  const jsonBytes = Buffer.from(json, 'utf8');
  const bodyAt = BODY_AT - CHECKSUM_AT;
  const arraysAt = bodyAt + 4 + Math.ceil(jsonBytes.length / 4) * 4;
  const file = Buffer.alloc(arraysAt + arrayBytes);
  file.writeUInt32LE(jsonBytes.length, bodyAt);
  jsonBytes.copy(file, bodyAt + 4);
  let at = arraysAt;
  for (const array of arrays) {
    file.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  createHash('sha256').update(file.subarray(bodyAt)).digest().copy(file, 0);
  return file;
}

function decodeStored(file: Buffer): unknown {
  const jsonLength = file.readUInt32LE(BODY_AT);
  const arraysAt = BODY_AT + 4 + Math.ceil(jsonLength / 4) * 4;
  return JSON.parse(file.toString('utf8', BODY_AT + 4, BODY_AT + 4 + jsonLength), (_, value: unknown) => {
    const reference = (value as { u32?: [number, number] } | null)?.u32;
    if (reference === undefined) return value;
    // Copied out of the file: its buffer need not be aligned, and each table's arrays are sent to the main thread on their own.
    const [offset, length] = reference;
    const array = new Uint32Array(length);
    new Uint8Array(array.buffer).set(file.subarray(arraysAt + offset, arraysAt + offset + length * 4));
    return array;
  });
}

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Tables that take a second of CSV scanning to build (the country and network address ranges, on
 * the second core while a start decodes the catalog and builds the ad index on the first), built
 * once by `npm run build` into a file that a start reads instead. The file is keyed on everything
 * the tables are built from: the source files' content, the content of the code that builds them
 * and the machine's byte order. A file that is missing, keyed otherwise (another package version,
 * changed code) or damaged is not read: the tables are built from the sources, as before, and the
 * caller is told why so that the start can log it.
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
 * File layout: "ADSTAB01"; the key (32 bytes, sha256); the sha256 of everything after it; a uint32
 * (little-endian) byte length and the stored value as JSON, each Uint32Array replaced by
 * {"u32":[byte offset, length]} into the arrays that follow the JSON (padded to 4 bytes).
 */
const MAGIC = 'ADSTAB01';
const KEY_AT = 8;
const CHECKSUM_AT = 40;
const BODY_AT = 72;
const FORMAT = 'adsvc prebuilt tables 1';

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
  const problem = problemOf(file, keyOf(tables));
  if (problem !== undefined) {
    onBuilt?.(`${tables.name} built from their CSV files: ${path} ${problem}`);
    return tables.build();
  }
  return tables.fromStored(decodeStored(file));
}

/** `npm run build`: writes the tables' file unless it is current; true when it wrote it. */
export function writePrebuiltTables<Tables>(tables: PrebuiltTables<Tables>): boolean {
  const key = keyOf(tables);
  const path = fileURLToPath(tables.file);
  try {
    if (problemOf(readFileSync(path), key) === undefined) return false;
  } catch {
    // Not there yet.
  }
  writeFileSync(`${path}.tmp`, encodeStored(key, tables.stored(tables.build())));
  renameSync(`${path}.tmp`, path);
  return true;
}

/** Why the file cannot be read as these tables, or undefined when it can. */
function problemOf(file: Buffer, key: Buffer): string | undefined {
  if (file.length < BODY_AT + 4 || file.toString('latin1', 0, KEY_AT) !== MAGIC) return 'is not a tables file';
  if (!file.subarray(KEY_AT, CHECKSUM_AT).equals(key)) return 'is stale (built from other source files or by other code; npm run build rewrites it)';
  if (!createHash('sha256').update(file.subarray(BODY_AT)).digest().equals(file.subarray(CHECKSUM_AT, BODY_AT))) return 'is damaged (its checksum does not match)';
  return undefined;
}

/** sha256 of the format, the byte order, the code's files and the sources' content. */
function keyOf(tables: PrebuiltTables<unknown>): Buffer {
  const hash = createHash('sha256').update(`${FORMAT}\0${endianness()}\0`);
  for (const folder of tables.code) {
    const directory = fileURLToPath(folder);
    const names = readdirSync(directory)
      .filter((name) => /\.[jt]s$/.test(name))
      .sort();
    for (const name of names) hash.update(`${name}\0`).update(readFileSync(`${directory}/${name}`)).update('\0');
  }
  for (const source of tables.sources) hash.update(readFileSync(source)).update('\0');
  return hash.digest();
}

function encodeStored(key: Buffer, stored: unknown): Buffer {
  const arrays: Uint32Array[] = [];
  let arrayBytes = 0;
  const json = JSON.stringify(stored, (_, value: unknown) => {
    if (!(value instanceof Uint32Array)) return value;
    arrays.push(value);
    arrayBytes += value.byteLength;
    return { u32: [arrayBytes - value.byteLength, value.length] };
  });
  const jsonBytes = Buffer.from(json, 'utf8');
  const arraysAt = BODY_AT + 4 + Math.ceil(jsonBytes.length / 4) * 4;
  const file = Buffer.alloc(arraysAt + arrayBytes);
  file.write(MAGIC, 0, 'latin1');
  key.copy(file, KEY_AT);
  file.writeUInt32LE(jsonBytes.length, BODY_AT);
  jsonBytes.copy(file, BODY_AT + 4);
  let at = arraysAt;
  for (const array of arrays) {
    file.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  createHash('sha256').update(file.subarray(BODY_AT)).digest().copy(file, CHECKSUM_AT);
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

import type { PGlite } from '@electric-sql/pglite';
import { protocol } from '@electric-sql/pglite';
import { DATA_ROW } from './dataRows.js';

/** A parameter as the wire protocol's text format sends it. */
export type TextParam = string | number | null;

/**
 * The first row's fields as the UTF-8 bytes the engine wrote, or undefined when there is no row.
 * For answers passed on as they are (a page of JSON built by the engine): PGlite's query() decodes
 * every field into a string, which the HTTP reply then flattens and encodes back into bytes, three
 * copies of a page (about 90 KiB of garbage per campaign-list page, and its scavenges). Here the
 * page stays bytes, viewed inside one copy of what the engine wrote. A SELECT outside a transaction
 * writes no notification (our own NOTIFYs arrive with their COMMIT), so none is missed by not
 * handing this output to PGlite's parser.
 *
 * Each SQL text is parsed once, as a named prepared statement, and then only bound and executed,
 * all messages in one call into the engine: the parse and rewrite of every request go (the engine
 * still plans with the parameters' values, as an unnamed statement would). A call that fails closes
 * its statement, and the next one prepares the SQL again under a new name: a failing parameter
 * leaks nothing, and a statement the engine no longer has never sticks.
 */
export function embeddedRowBytes(db: PGlite): (sql: string, params: readonly TextParam[]) => Promise<(Buffer | null)[] | undefined> {
  const statements = new Map<string, string>();
  let made = 0;
  // What the engine writes arrives in chunks valid only during the callback: gathered here, in a
  // buffer kept across calls, then copied once. The stream form of the raw call matters: the plain
  // one also decodes every message into strings and keeps them in PGlite's last result object.
  const answerBytes = new GatheredBytes(64 * 1024);
  // Both of PGlite's locks, as its query() takes them: between two queries of an open transaction
  // these messages would otherwise run inside it (seeing its uncommitted rows) or abort it.
  const send = (message: Uint8Array) =>
    db._runExclusiveTransaction(() =>
      db._runExclusiveQuery(async () => {
        answerBytes.clear();
        await db.execProtocolRawStream(message, { syncToFs: false, onRawData: answerBytes.gather });
        return Buffer.from(answerBytes.view());
      }),
    );
  return async (sql, params) => {
    const { serialize } = protocol;
    const prepared = statements.get(sql);
    const name = prepared ?? `adsvc_row_bytes_${++made}`;
    const values = params.map((value) => (value === null ? null : String(value)));
    const answer = await send(
      Buffer.concat([
        ...(prepared === undefined ? [serialize.parse({ name, text: sql })] : []),
        serialize.bind({ statement: name, values }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    try {
      const fields = firstRowFields(answer);
      statements.set(sql, name);
      return fields;
    } catch (error) {
      statements.delete(sql);
      await send(Buffer.concat([serialize.close({ type: 'S', name }), serialize.sync()]));
      throw error;
    }
  };
}

/**
 * Every row of `sql` (no parameters) as the DataRow messages the engine wrote, one after another
 * (src/store/dataRows.ts), for rows kept as bytes: the catalog's creatives at start, which PGlite's
 * query() would decode field by field into 150,000 objects that the ad index does not need until
 * a line item is served. Runs inside a transaction that db.transaction has begun: it takes only
 * PGlite's query lock, as the transaction's own queries do.
 */
export function embeddedDataRows(db: PGlite): (sql: string) => Promise<Buffer> {
  return (sql) =>
    db._runExclusiveQuery(async () => {
      // Each chunk (8 KB, thousands of them) is valid only during the callback: copied into slabs,
      // not a Buffer each (which cost 0.05-0.1 s of a start at 150,000 creatives).
      const answer = new SlabbedBytes();
      await db.execProtocolRawStream(protocol.serialize.query(sql), { syncToFs: false, onRawData: answer.gather });
      // Copied once more, whole, into memory a worker thread shares: the start walks the creatives'
      // rows in one while it decodes the line items' (creativeGroups.ts); a copy for it was 45 ms of
      // the main thread at 100,000 line items. The rows are a view of it (the few bytes of the
      // answer's other messages around them stay).
      return dataRowsOf(answer.shared());
    });
}

/** Bytes of the slabs: large enough that an answer of 76 MB is a few dozen, small enough that the last one's unused tail does not matter. */
const SLAB_BYTES = 4 * 2 ** 20;

/**
 * Chunks the engine writes, each valid only during its callback, copied one after another into
 * fixed-size slabs, then once into one shared buffer of the exact size. A buffer that doubled as it
 * went (1 MB to 64 MB for the creatives' 47 MB at 100,000 line items) touched 127 MB of fresh memory
 * and copied 63 MB on the way, then its rows were copied again: about 270 MB of new pages for a
 * first start's two reads against about 155 MB so.
 */
class SlabbedBytes {
  private readonly full: Buffer[] = [];
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private used = 0;

  readonly gather = (chunk: Uint8Array): void => {
    for (let from = 0; from < chunk.length; ) {
      if (this.used === SLAB_BYTES) {
        this.full.push(this.slab);
        this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
        this.used = 0;
      }
      const length = Math.min(chunk.length - from, SLAB_BYTES - this.used);
      this.slab.set(chunk.subarray(from, from + length), this.used);
      this.used += length;
      from += length;
    }
  };

  /** Everything gathered, in a SharedArrayBuffer of its size. */
  shared(): Buffer {
    const bytes = Buffer.from(new SharedArrayBuffer(this.full.length * SLAB_BYTES + this.used));
    this.full.forEach((slab, index) => bytes.set(slab, index * SLAB_BYTES));
    bytes.set(this.slab.subarray(0, this.used), this.full.length * SLAB_BYTES);
    return bytes;
  }
}

/** Chunks the engine writes, each valid only during its callback, copied one after another into one buffer that doubles as needed. */
class GatheredBytes {
  private bytes: Buffer;
  private written = 0;

  constructor(initialSize: number) {
    this.bytes = Buffer.allocUnsafeSlow(initialSize);
  }

  readonly gather = (chunk: Uint8Array): void => {
    if (this.written + chunk.length > this.bytes.length) {
      const larger = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.written + chunk.length));
      this.bytes.copy(larger, 0, 0, this.written);
      this.bytes = larger;
    }
    this.bytes.set(chunk, this.written);
    this.written += chunk.length;
  };

  clear(): void {
    this.written = 0;
  }

  /** What was gathered, a view valid until the next gather. */
  view(): Buffer {
    return this.bytes.subarray(0, this.written);
  }
}

const ERROR_RESPONSE = 0x45; // 'E'

/** The DataRow messages of one statement's answer, a view of `bytes`; an ErrorResponse throws. */
function dataRowsOf(bytes: Buffer): Buffer {
  let first = -1;
  let end = 0;
  for (let at = 0; at < bytes.length; at += 1 + bytes.readInt32BE(at + 1)) {
    const type = bytes[at];
    if (type === ERROR_RESPONSE) throw databaseError(bytes);
    if (type !== DATA_ROW) continue;
    // One statement's rows come one after another: a gap would be a message this reader does not know.
    if (first >= 0 && at !== end) throw new Error('the embedded Postgres answered rows this reader does not know');
    if (first < 0) first = at;
    end = at + 1 + bytes.readInt32BE(at + 1);
  }
  return first < 0 ? Buffer.alloc(0) : bytes.subarray(first, end);
}

/** The first DataRow's fields as views of `bytes`; an ErrorResponse throws the DatabaseError query() would. */
function firstRowFields(bytes: Buffer): (Buffer | null)[] | undefined {
  let fields: (Buffer | null)[] | undefined;
  for (let at = 0; at < bytes.length; at += 1 + bytes.readInt32BE(at + 1)) {
    const type = bytes[at];
    if (type === ERROR_RESPONSE) throw databaseError(bytes);
    if (type !== DATA_ROW || fields) continue;
    const count = bytes.readInt16BE(at + 5);
    fields = [];
    let field = at + 7;
    for (let index = 0; index < count; index++) {
      const length = bytes.readInt32BE(field);
      field += 4;
      fields.push(length < 0 ? null : bytes.subarray(field, field + length));
      field += Math.max(length, 0);
    }
  }
  return fields;
}

function databaseError(answer: Uint8Array): Error {
  let error: Error | undefined;
  new protocol.Parser().parse(answer, (message) => {
    if (message.name === 'error') error ??= message as unknown as Error;
  });
  return error ?? new Error('the embedded Postgres answered an error it could not describe');
}

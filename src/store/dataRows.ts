/**
 * Rows kept as the bytes of the wire protocol's DataRow messages, one after another: per row 'D',
 * the message's Int32 length, an Int16 field count, then per field an Int32 length (-1 for NULL)
 * and that many bytes of the field's text. Embedded PGlite hands these over as its engine wrote
 * them (no field is decoded into a string); rows read through node-postgres are encoded into the
 * same form (encodeDataRows). What keeps rows as bytes reads them with readDataRow.
 */

export const DATA_ROW = 0x44; // 'D'

/**
 * Reads the DataRow at `at`: the [start, end) of each field in `bytes` into `bounds`, two numbers
 * a field (start -1 for NULL). Returns where the next message starts. Throws on what is not a
 * DataRow of `bounds.length / 2` fields inside `bytes`.
 */
export function readDataRow(bytes: Buffer, at: number, bounds: Int32Array): number {
  if (bytes[at] !== DATA_ROW || at + 7 > bytes.length) throw new Error(`no DataRow at byte ${at}`);
  const next = at + 1 + bytes.readInt32BE(at + 1);
  if (next > bytes.length || bytes.readInt16BE(at + 5) * 2 !== bounds.length) throw new Error(`the DataRow at byte ${at} does not hold the fields expected`);
  let field = at + 7;
  for (let index = 0; index < bounds.length; index += 2) {
    const length = bytes.readInt32BE(field);
    field += 4;
    bounds[index] = length < 0 ? -1 : field;
    bounds[index + 1] = length < 0 ? -1 : field + length;
    field += Math.max(length, 0);
  }
  if (field !== next) throw new Error(`the DataRow at byte ${at} does not hold the fields expected`);
  return next;
}

/** Field `index` of the row read into `bounds`, as text (null for NULL). */
export function fieldText(bytes: Buffer, bounds: Int32Array, index: number): string | null {
  const start = bounds[index * 2]!;
  return start < 0 ? null : bytes.toString('utf8', start, bounds[index * 2 + 1]);
}

/** Rows of text fields as DataRow messages, the form embedded PGlite gives them in. */
export function encodeDataRows(rows: ReadonlyArray<ReadonlyArray<string | null>>): Buffer {
  let size = 0;
  for (const row of rows) {
    size += 7;
    for (const field of row) size += 4 + (field === null ? 0 : Buffer.byteLength(field));
  }
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const row of rows) {
    const start = at;
    bytes[at] = DATA_ROW;
    at = bytes.writeInt16BE(row.length, at + 5);
    for (const field of row) {
      if (field === null) {
        at = bytes.writeInt32BE(-1, at);
        continue;
      }
      const length = bytes.write(field, at + 4, 'utf8');
      bytes.writeInt32BE(length, at);
      at += 4 + length;
    }
    bytes.writeInt32BE(at - start - 1, start + 1);
  }
  return bytes;
}

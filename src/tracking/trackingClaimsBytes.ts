import { PRICE_MODELS } from '../money/priceModels.js';
import type { TrackingClaims } from './trackingClaimsSchema.js';

/**
 * The claims of a format 2 tracking token as bytes (the token is their base64url, followed by
 * their HMAC). Written field by field into a buffer: a quarter of the JSON's size and of its cost.
 *
 *   0      2, the format
 *   1      the price model (0 tCPM, 1 CPC, 2 CPA), plus 4 when k is present
 *   2      s: length in bytes (1 byte), then UTF-8
 *   ...    c, l, r: 16 bytes each (UUIDs travel as their bytes and come back in lowercase,
 *          the form Postgres writes)
 *   ...    p: length in bytes (2 bytes, big-endian), then UTF-8
 *   ...    u: 16 bytes
 *   ...    n, e, t: 8 bytes each, big-endian
 *   ...    k, when flagged: length in bytes (1 byte), then UTF-8
 *
 * Nothing follows the last field. A payload that breaks any of this decodes to nothing.
 */
const CLAIMS_FORMAT = 2;
const WITH_USER_KEY = 4;
/** The claims schema's limits on s and k, and on p: their UTF-8 then fits the length bytes. */
const MAX_ID_CHARS = 64;
const MAX_PLACEMENT_CHARS = 128;
/** The largest payload: every string at its limit, 3 UTF-8 bytes per character. */
export const MAX_CLAIMS_BYTES = 2 + 2 * (1 + 3 * MAX_ID_CHARS) + 4 * 16 + 2 + 3 * MAX_PLACEMENT_CHARS + 3 * 8;

const HEX_DIGITS = '0123456789abcdef';
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE[HEX_DIGITS.charCodeAt(i)] = i;
  HEX_VALUE[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i;
}
const UUID_CHARS = 36;
const HEX_CHAR = Buffer.from(HEX_DIGITS, 'latin1');
const DASH = 0x2d;
const uuidText = Buffer.alloc(UUID_CHARS, DASH);

/** Writes the claims into `out` from offset 0; answers the length. Throws on claims the schema would refuse in a way the format cannot carry. */
export function writeClaims(claims: TrackingClaims, out: Buffer): number {
  const { s, c, l, r, p, u, m, n, e, t, k } = claims;
  const model = PRICE_MODELS.indexOf(m);
  if (model < 0) throw new RangeError(`tracking claims: unknown price model ${m}`);
  out[0] = CLAIMS_FORMAT;
  out[1] = k === undefined ? model : model | WITH_USER_KEY;
  let at = writeText(s, MAX_ID_CHARS, 1, out, 2);
  at = writeUuid(c, out, at);
  at = writeUuid(l, out, at);
  at = writeUuid(r, out, at);
  at = writeText(p, MAX_PLACEMENT_CHARS, 2, out, at);
  at = writeUuid(u, out, at);
  at = writeInteger(n, out, at);
  at = writeInteger(e, out, at);
  at = writeInteger(t, out, at);
  return k === undefined ? at : writeText(k, MAX_ID_CHARS, 1, out, at);
}

/** The claims in bytes[0, length), unchecked against the schema (the caller does that), or undefined when they do not decode. */
export function readClaims(bytes: Buffer, length: number): Record<string, unknown> | undefined {
  if (length < 2 || bytes[0] !== CLAIMS_FORMAT) return undefined;
  const flags = bytes[1]!;
  const m = PRICE_MODELS[flags & ~WITH_USER_KEY];
  if (m === undefined) return undefined;
  const reader = new ClaimsReader(bytes, length, 2);
  const s = reader.text(1);
  const c = reader.uuid();
  const l = reader.uuid();
  const r = reader.uuid();
  const p = reader.text(2);
  const u = reader.uuid();
  const n = reader.integer();
  const e = reader.integer();
  const t = reader.integer();
  const k = flags & WITH_USER_KEY ? reader.text(1) : undefined;
  if (!reader.endedExactly()) return undefined;
  return k === undefined ? { s, c, l, r, p, u, m, n, e, t } : { s, c, l, r, p, u, m, n, e, t, k };
}

function writeText(text: string, maxChars: number, lengthBytes: 1 | 2, out: Buffer, at: number): number {
  if (text.length > maxChars) throw new RangeError(`tracking claims: a text field is longer than ${maxChars} characters`);
  const start = at + lengthBytes;
  let end = start;
  // ASCII byte by byte (every id the service makes): a native write costs more for a few characters.
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) {
      end = start + out.write(text, start, 'utf8');
      break;
    }
    out[end++] = code;
  }
  const length = end - start;
  if (lengthBytes === 1) out[at] = length;
  else {
    out[at] = length >>> 8;
    out[at + 1] = length;
  }
  return end;
}

/** Where each of a UUID's 16 bytes starts in its text: the dashes at 8, 13, 18 and 23 are skipped. */
const UUID_BYTE_AT = Uint8Array.from([0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]);

function writeUuid(uuid: string, out: Buffer, at: number): number {
  if (uuid.length !== UUID_CHARS || uuid.charCodeAt(8) !== DASH || uuid.charCodeAt(13) !== DASH || uuid.charCodeAt(18) !== DASH || uuid.charCodeAt(23) !== DASH) {
    throw new RangeError('tracking claims: an id is not a UUID');
  }
  // A character past 127 reads as -1 too (HEX_VALUE has 128 entries), so any bad digit makes `bad` negative.
  let bad = 0;
  for (let i = 0; i < 16; i++) {
    const char = UUID_BYTE_AT[i]!;
    const high = HEX_VALUE[uuid.charCodeAt(char)] ?? -1;
    const low = HEX_VALUE[uuid.charCodeAt(char + 1)] ?? -1;
    bad |= high | low;
    out[at + i] = (high << 4) | low;
  }
  if (bad < 0) throw new RangeError('tracking claims: an id is not a UUID');
  return at + 16;
}

function writeInteger(value: number, out: Buffer, at: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError('tracking claims: a number is not a non-negative integer');
  // Byte by byte: Buffer's writeUInt32BE checks its arguments again, twice per field.
  const high = Math.floor(value / 2 ** 32);
  out[at] = high >>> 24;
  out[at + 1] = high >>> 16;
  out[at + 2] = high >>> 8;
  out[at + 3] = high;
  out[at + 4] = value >>> 24;
  out[at + 5] = value >>> 16;
  out[at + 6] = value >>> 8;
  out[at + 7] = value;
  return at + 8;
}

/** Reads fields in order; a field past the end makes every later read fail and endedExactly() false. */
class ClaimsReader {
  private failed = false;

  constructor(
    private readonly bytes: Buffer,
    private readonly length: number,
    private at: number,
  ) {}

  private take(count: number): number {
    const start = this.at;
    this.at += count;
    if (this.at > this.length) this.failed = true;
    return start;
  }

  text(lengthBytes: 1 | 2): string {
    const lengthAt = this.take(lengthBytes);
    if (this.failed) return '';
    const count = lengthBytes === 1 ? this.bytes[lengthAt]! : this.bytes.readUInt16BE(lengthAt);
    const start = this.take(count);
    return this.failed ? '' : this.bytes.toString('utf8', start, start + count);
  }

  uuid(): string {
    const start = this.take(16);
    if (this.failed) return '';
    let char = 0;
    for (let i = 0; i < 16; i++) {
      if (char === 8 || char === 13 || char === 18 || char === 23) char++;
      const byte = this.bytes[start + i]!;
      uuidText[char++] = HEX_CHAR[byte >>> 4]!;
      uuidText[char++] = HEX_CHAR[byte & 15]!;
    }
    return uuidText.toString('latin1');
  }

  integer(): number {
    const start = this.take(8);
    if (this.failed) return -1;
    return this.bytes.readUInt32BE(start) * 2 ** 32 + this.bytes.readUInt32BE(start + 4);
  }

  endedExactly(): boolean {
    return !this.failed && this.at === this.length;
  }
}

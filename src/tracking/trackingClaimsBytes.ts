import { PRICE_MODELS } from '../money/priceModels.js';
import { trackingClaimsSchema, type TrackingClaims } from './trackingClaimsSchema.js';

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
/** Four UUIDs as text (uuidsText), dashes in place. */
const uuidText = Buffer.alloc(4 * UUID_CHARS, DASH);

/** c, l and r together: 16 bytes each. */
const CLAIM_IDS_BYTES = 48;

/**
 * c, l and r as writeClaims writes them, for its `ids`: a serve's campaign, line item and creative
 * are the same for every serve of that creative, so serving makes these once per creative
 * (adPayload.ts) instead of parsing three UUIDs per token. Throws as writeClaims does on an id that
 * is not a UUID.
 */
export function claimIdsBytes(c: string, l: string, r: string): Buffer {
  const bytes = Buffer.alloc(CLAIM_IDS_BYTES);
  writeUuid(r, bytes, writeUuid(l, bytes, writeUuid(c, bytes, 0)));
  return bytes;
}

/**
 * Writes the claims into `out` from offset 0; answers the length. Throws on claims the schema would
 * refuse in a way the format cannot carry. `ids`, when given, is claimIdsBytes(c, l, r) of these
 * claims, copied instead of writing the three.
 */
export function writeClaims(claims: TrackingClaims, out: Buffer, ids?: Uint8Array): number {
  const { s, c, l, r, p, u, m, n, e, t, k } = claims;
  const model = PRICE_MODELS.indexOf(m);
  if (model < 0) throw new RangeError(`tracking claims: unknown price model ${m}`);
  out[0] = CLAIMS_FORMAT;
  out[1] = k === undefined ? model : model | WITH_USER_KEY;
  let at = writeText(s, MAX_ID_CHARS, 1, out, 2);
  if (ids === undefined) {
    at = writeUuid(c, out, at);
    at = writeUuid(l, out, at);
    at = writeUuid(r, out, at);
  } else {
    // Byte by byte: TypedArray.set costs more for 48 bytes.
    for (let i = 0; i < CLAIM_IDS_BYTES; i++) out[at + i] = ids[i]!;
    at += CLAIM_IDS_BYTES;
  }
  at = writeText(p, MAX_PLACEMENT_CHARS, 2, out, at);
  at = writeUuid(u, out, at);
  at = writeInteger(n, out, at);
  at = writeInteger(e, out, at);
  at = writeInteger(t, out, at);
  return k === undefined ? at : writeText(k, MAX_ID_CHARS, 1, out, at);
}

/**
 * The claims in bytes[0, length), or undefined when they do not decode or the claims schema refuses
 * them. Every id the service makes is ASCII: such claims are checked here, on the bytes, against
 * the schema's limits (string lengths, UUID version and variant, safe integers), which costs a tenth
 * of the compiled schema's parse (every pixel and click reads one token). Claims with any other
 * character in a text take the schema itself, which counts their lengths in code points. The unit
 * test holds both ways to the schema over every limit and random payloads.
 */
export function readClaims(bytes: Buffer, length: number): TrackingClaims | undefined {
  if (length < 2 || bytes[0] !== CLAIMS_FORMAT) return undefined;
  const flags = bytes[1]!;
  const m = PRICE_MODELS[flags & ~WITH_USER_KEY];
  if (m === undefined) return undefined;
  // Offsets first: the lengths of s and p place every later field.
  const sAt = 3;
  if (sAt > length) return undefined;
  const sEnd = sAt + bytes[2]!;
  const uuidsAt = sEnd;
  const pLengthAt = uuidsAt + 48;
  if (pLengthAt + 2 > length) return undefined;
  const pAt = pLengthAt + 2;
  const pEnd = pAt + bytes.readUInt16BE(pLengthAt);
  const uAt = pEnd;
  const integersAt = uAt + 16;
  const kLengthAt = integersAt + 24;
  const withUserKey = (flags & WITH_USER_KEY) !== 0;
  const kAt = kLengthAt + 1;
  const end = withUserKey ? (kAt <= length ? kAt + bytes[kLengthAt]! : Infinity) : kLengthAt;
  if (end !== length) return undefined;
  const n = integerAt(bytes, integersAt);
  const e = integerAt(bytes, integersAt + 8);
  const t = integerAt(bytes, integersAt + 16);
  const s = bytes.toString('latin1', sAt, sEnd);
  const p = bytes.toString('latin1', pAt, pEnd);
  const k = withUserKey ? bytes.toString('latin1', kAt, end) : undefined;
  if (!isAscii(bytes, sAt, sEnd) || !isAscii(bytes, pAt, pEnd) || (withUserKey && !isAscii(bytes, kAt, end))) {
    return schemaChecked(bytes, { sAt, sEnd, uuidsAt, pAt, pEnd, uAt, kAt, end, withUserKey }, m, n, e, t);
  }
  if (s.length < 1 || s.length > MAX_ID_CHARS || p.length < 1 || p.length > MAX_PLACEMENT_CHARS) return undefined;
  if (k !== undefined && (k.length < 1 || k.length > MAX_ID_CHARS)) return undefined;
  if (!isSchemaUuid(bytes, uuidsAt) || !isSchemaUuid(bytes, uuidsAt + 16) || !isSchemaUuid(bytes, uuidsAt + 32) || !isSchemaUuid(bytes, uAt)) return undefined;
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(e) || e < 1 || !Number.isSafeInteger(t) || t < 1) return undefined;
  // The four UUIDs as text with one conversion, cut into their own strings.
  const uuids = uuidsText(bytes, uuidsAt, uAt);
  const c = uuids.slice(0, UUID_CHARS);
  const l = uuids.slice(UUID_CHARS, 2 * UUID_CHARS);
  const r = uuids.slice(2 * UUID_CHARS, 3 * UUID_CHARS);
  const u = uuids.slice(3 * UUID_CHARS);
  return k === undefined ? { s, c, l, r, p, u, m, n, e, t } : { s, c, l, r, p, u, m, n, e, t, k };
}

/** Where each field of a payload lies, as readClaims found it. */
interface FieldOffsets {
  sAt: number;
  sEnd: number;
  uuidsAt: number;
  pAt: number;
  pEnd: number;
  uAt: number;
  kAt: number;
  end: number;
  withUserKey: boolean;
}

/** Claims with a text beyond ASCII: decoded as UTF-8 and judged by the schema itself. */
function schemaChecked(bytes: Buffer, at: FieldOffsets, m: TrackingClaims['m'], n: number, e: number, t: number): TrackingClaims | undefined {
  const uuids = uuidsText(bytes, at.uuidsAt, at.uAt);
  const decoded = {
    s: bytes.toString('utf8', at.sAt, at.sEnd),
    c: uuids.slice(0, UUID_CHARS),
    l: uuids.slice(UUID_CHARS, 2 * UUID_CHARS),
    r: uuids.slice(2 * UUID_CHARS, 3 * UUID_CHARS),
    p: bytes.toString('utf8', at.pAt, at.pEnd),
    u: uuids.slice(3 * UUID_CHARS),
    m,
    n,
    e,
    t,
    ...(at.withUserKey ? { k: bytes.toString('utf8', at.kAt, at.end) } : {}),
  };
  const parsed = trackingClaimsSchema.safeParse(decoded);
  return parsed.success ? parsed.data : undefined;
}

function integerAt(bytes: Buffer, at: number): number {
  return bytes.readUInt32BE(at) * 2 ** 32 + bytes.readUInt32BE(at + 4);
}

function isAscii(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/** What z.uuid() accepts: version 1-8 with the RFC 9562 variant, or the nil or max UUID. */
function isSchemaUuid(bytes: Buffer, at: number): boolean {
  const version = bytes[at + 6]! >>> 4;
  if (version >= 1 && version <= 8 && bytes[at + 8]! >>> 6 === 2) return true;
  const first = bytes[at]!;
  if (first !== 0 && first !== 0xff) return false;
  for (let i = 1; i < 16; i++) if (bytes[at + i] !== first) return false;
  return true;
}

/**
 * The UUIDs c, l, r (16 bytes each from `at`) and u (16 bytes at `uAt`) as one string of 4 x 36
 * lowercase characters: one conversion instead of four.
 */
function uuidsText(bytes: Buffer, at: number, uAt: number): string {
  writeUuidText(bytes, at, 0);
  writeUuidText(bytes, at + 16, UUID_CHARS);
  writeUuidText(bytes, at + 32, 2 * UUID_CHARS);
  writeUuidText(bytes, uAt, 3 * UUID_CHARS);
  return uuidText.toString('latin1');
}

function writeUuidText(bytes: Buffer, at: number, textAt: number): void {
  let char = textAt;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) char++;
    const byte = bytes[at + i]!;
    uuidText[char++] = HEX_CHAR[byte >>> 4]!;
    uuidText[char++] = HEX_CHAR[byte & 15]!;
  }
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

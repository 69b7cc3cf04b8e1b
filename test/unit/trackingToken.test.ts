import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signTrackingToken, trackingClaimsSchema, unverifiedTrackingClaims, verifyTrackingToken, type TrackingClaims } from '../../src/tracking/trackingToken.js';
import { claimIdsBytes } from '../../src/tracking/trackingClaimsBytes.js';

const secret = 'test secret with ünïcödé, longer than one block of sha256 so that hmac hashes the key first';
const nowMs = Date.UTC(2026, 10, 23, 12);
const claims: TrackingClaims = {
  s: 'c2VydmUtaWQtMTIzNDU2',
  c: '7b0c1d9e-1111-4222-8333-444455556666',
  l: '8b0c1d9e-1111-4222-8333-444455556666',
  r: '9b0c1d9e-1111-4222-8333-444455556666',
  p: 'placement-1',
  u: 'ab0c1d9e-1111-4222-8333-444455556666',
  m: 'tCPM',
  n: 1_500_000,
  e: nowMs / 1000 + 3600,
  t: nowMs,
};

/** A token of format 1 (the JSON token of versions before format 2), signed here as that code did: HMAC-SHA256 of the base64url JSON claims. */
function format1Token(payloadObject: unknown, key = secret): string {
  const payload = Buffer.from(JSON.stringify(payloadObject)).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

/** A token of format 2 around any bytes, MACed by node's own HMAC-SHA256: what the format says a token is. */
function format2Token(payload: Buffer, key = secret): string {
  return Buffer.concat([payload, createHmac('sha256', key).update(payload).digest()]).toString('base64url');
}

/** The claims bytes of a token signed now (everything but its last 32 bytes). */
function payloadOf(token: string): Buffer {
  const bytes = Buffer.from(token, 'base64url');
  return bytes.subarray(0, bytes.length - 32);
}

const uuidBytes = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex');
const integerBytes = (value: number) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
};
const text1 = (text: string) => Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)]);
const text2 = (text: string) => {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(Buffer.byteLength(text));
  return Buffer.concat([length, Buffer.from(text)]);
};

/** The claims in the byte layout of docs/tracking.md, written out by hand. */
function layout(fields: TrackingClaims, overrides: { format?: number; flags?: number; tail?: Buffer } = {}): Buffer {
  const model = ['tCPM', 'CPC', 'CPA'].indexOf(fields.m);
  return Buffer.concat([
    Buffer.from([overrides.format ?? 2, overrides.flags ?? (fields.k === undefined ? model : model | 4)]),
    text1(fields.s),
    uuidBytes(fields.c),
    uuidBytes(fields.l),
    uuidBytes(fields.r),
    text2(fields.p),
    uuidBytes(fields.u),
    integerBytes(fields.n),
    integerBytes(fields.e),
    integerBytes(fields.t),
    fields.k === undefined ? Buffer.alloc(0) : text1(fields.k),
    overrides.tail ?? Buffer.alloc(0),
  ]);
}

describe('tracking tokens', () => {
  it('are signed in format 2: the claims in bytes followed by their HMAC-SHA256 under the secret, base64url', () => {
    for (const signed of [claims, { ...claims, k: 'dXNlci1rZXktMTIzNDU2Nzg', m: 'CPC' as const }, { ...claims, m: 'CPA' as const, n: 0 }]) {
      const token = signTrackingToken(signed, secret);
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(payloadOf(token)).toEqual(layout(signed));
      expect(token).toBe(format2Token(layout(signed)));
      expect(verifyTrackingToken(token, secret, nowMs)).toEqual({ valid: true, claims: signed });
    }
    expect(signTrackingToken(claims, secret).length).toBeLessThan(format1Token(claims).length * 0.6);
  });

  it('are signed the same with c, l and r given as their bytes (claimIdsBytes), which refuses what is not a UUID', () => {
    for (const signed of [claims, { ...claims, k: 'dXNlci1rZXktMTIzNDU2Nzg', m: 'CPC' as const }]) {
      expect(signTrackingToken(signed, secret, 2, claimIdsBytes(signed.c, signed.l, signed.r))).toBe(signTrackingToken(signed, secret));
      expect(signTrackingToken(signed, secret, 2, claimIdsBytes(signed.c.toUpperCase(), signed.l, signed.r.toUpperCase()))).toBe(signTrackingToken(signed, secret));
    }
    expect(claimIdsBytes(claims.c, claims.l, claims.r)).toEqual(Buffer.concat([uuidBytes(claims.c), uuidBytes(claims.l), uuidBytes(claims.r)]));
    expect(() => claimIdsBytes(claims.c, 'not-a-uuid', claims.r)).toThrow(RangeError);
    expect(() => claimIdsBytes(claims.c, claims.l, `${claims.r.slice(0, -1)}g`)).toThrow(RangeError);
  });

  it('are signed in format 1 on request (TRACKING_TOKEN_FORMAT=1), byte for byte as versions before format 2 sign them', () => {
    const awkward = { ...claims, s: 'serve "quoted" \\ é', p: 'placement\u2028<tag>', k: 'user-key' };
    for (const signed of [claims, awkward, { ...claims, m: 'CPA' as const, n: 0 }]) {
      const token = signTrackingToken(signed, secret, 1);
      expect(token).toBe(format1Token(signed));
      expect(verifyTrackingToken(token, secret, nowMs)).toEqual({ valid: true, claims: signed });
    }
    expect(signTrackingToken(claims, secret, 2)).toBe(signTrackingToken(claims, secret));
  });

  it('still verify tokens of format 1 (links served by a version before format 2), for their whole lifetime', () => {
    expect(verifyTrackingToken(format1Token(claims), secret, nowMs)).toEqual({ valid: true, claims });
    expect(verifyTrackingToken(format1Token({ ...claims, k: 'user-key' }), secret, nowMs)).toEqual({ valid: true, claims: { ...claims, k: 'user-key' } });
    expect(verifyTrackingToken(format1Token(claims), secret, claims.e * 1000)).toEqual({ valid: true, claims });
    expect(verifyTrackingToken(format1Token(claims), secret, claims.e * 1000 + 1)).toEqual({ valid: false, reason: 'expired_token', claims });
    expect(verifyTrackingToken(format1Token(claims, 'another secret'), secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    const token = format1Token(claims);
    expect(verifyTrackingToken(token.slice(0, -1) + (token.at(-1) === 'A' ? 'B' : 'A'), secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
  });

  it('carry any claims the schema accepts unchanged, whatever the strings hold; UUIDs come back in lowercase', () => {
    const awkward: TrackingClaims = {
      ...claims,
      s: 'id"with\\odd ✓'.padEnd(64, 'é'),
      p: 'plä\ncement \u2028 😀'.padEnd(128, '€'),
      n: Number.MAX_SAFE_INTEGER,
      e: 2 ** 32 + 5,
      k: 'key "quoted" 😀',
    };
    expect(trackingClaimsSchema.safeParse(awkward).success).toBe(true);
    expect(verifyTrackingToken(signTrackingToken(awkward, secret), secret, nowMs)).toEqual({ valid: true, claims: awkward });
    const capitals = { ...claims, c: claims.c.toUpperCase(), u: 'AB0C1D9E-1111-4222-8333-444455556666' };
    expect(verifyTrackingToken(signTrackingToken(capitals, secret), secret, nowMs)).toEqual({ valid: true, claims });
  });

  it('refuse to sign claims the format cannot carry exactly', () => {
    const refused: TrackingClaims[] = [
      { ...claims, c: 'not-a-uuid' },
      { ...claims, u: '7b0c1d9e_1111-4222-8333-444455556666' },
      { ...claims, l: '7b0c1d9e-1111-4222-8333-44445555666g' },
      { ...claims, r: 'é7b0c1d9-1111-4222-8333-444455556666' },
      { ...claims, c: '7b0c1d9e-1111-4222-8333x444455556666' },
      { ...claims, n: 1.5 },
      { ...claims, n: -1 },
      { ...claims, t: 2 ** 53 },
      { ...claims, s: 'x'.repeat(65) },
      { ...claims, p: 'x'.repeat(129) },
      { ...claims, m: 'CPV' as TrackingClaims['m'] },
    ];
    for (const signed of refused) expect(() => signTrackingToken(signed, secret)).toThrow(RangeError);
  });

  it('are bad_token when any character is altered, under another secret, or spelt another way', () => {
    const token = signTrackingToken({ ...claims, k: 'user-key' }, secret);
    for (let i = 0; i < token.length; i++) {
      for (const replacement of ['A', 'B', '-', 'z']) {
        if (token[i] === replacement) continue;
        const altered = token.slice(0, i) + replacement + token.slice(i + 1);
        expect(verifyTrackingToken(altered, secret, nowMs), `character ${i}`).toEqual({ valid: false, reason: 'bad_token' });
      }
    }
    expect(verifyTrackingToken(token, 'another secret', nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    expect(verifyTrackingToken(signTrackingToken(claims, 'another secret'), 'another secret', nowMs)).toEqual({ valid: true, claims });
    const base64 = Buffer.from(token, 'base64url').toString('base64');
    expect(base64).not.toBe(token);
    for (const spelling of [base64, `${token}=`, `${token}==`, `${token}A`, token.slice(0, -1), ` ${token}`, `${token}.`, '']) {
      expect(verifyTrackingToken(spelling, secret, nowMs), spelling).toEqual({ valid: false, reason: 'bad_token' });
    }
  });

  it('answer bad_token for a signed payload the format or the claims schema refuses', () => {
    const refused: Buffer[] = [
      layout(claims, { format: 1 }),
      layout(claims, { format: 0x7b }),
      layout(claims, { flags: 3 }),
      layout(claims, { flags: 8 }),
      layout(claims, { flags: 4 }),
      layout(claims, { tail: Buffer.from([0]) }),
      layout(claims).subarray(0, 60),
      layout({ ...claims, c: '7b0c1d9e-1111-0222-8333-444455556666' }),
      layout({ ...claims, l: '8b0c1d9e-1111-4222-0333-444455556666' }),
      layout({ ...claims, s: '' }),
      layout({ ...claims, s: 'x'.repeat(65) }),
      layout({ ...claims, p: '' }),
      layout({ ...claims, e: 0 }),
      layout({ ...claims, n: 2 ** 53 }),
      Buffer.from([2]),
    ];
    for (const payload of refused) {
      expect(verifyTrackingToken(format2Token(payload), secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    }
    expect(verifyTrackingToken(format2Token(layout(claims)), secret, nowMs)).toEqual({ valid: true, claims });
  });

  it('judge format 2 claims exactly as the claims schema does, at each of its limits and on random payloads', () => {
    // Integers as bigint: a payload carries 64 bits, past what a number holds exactly.
    type Fields = Omit<TrackingClaims, 'n' | 'e' | 't' | 'm'> & { m: string; n: bigint; e: bigint; t: bigint };
    const encode = (f: Fields) => {
      const integer = (value: bigint) => {
        const bytes = Buffer.alloc(8);
        bytes.writeBigUInt64BE(value);
        return bytes;
      };
      const model = ['tCPM', 'CPC', 'CPA'].indexOf(f.m);
      return Buffer.concat([
        Buffer.from([2, f.k === undefined ? model : model | 4]),
        text1(f.s),
        uuidBytes(f.c),
        uuidBytes(f.l),
        uuidBytes(f.r),
        text2(f.p),
        uuidBytes(f.u),
        integer(f.n),
        integer(f.e),
        integer(f.t),
        f.k === undefined ? Buffer.alloc(0) : text1(f.k),
      ]);
    };
    const texts = ['', 'a', 'x'.repeat(64), 'x'.repeat(65), 'é', 'é'.repeat(64), 'é'.repeat(65), '😀'.repeat(32), '😀'.repeat(33), '😀'.repeat(63), 'a"b\\c\n', '\u0000'];
    const placements = ['', 'p', 'p'.repeat(128), 'p'.repeat(129), 'é'.repeat(127), 'é'.repeat(128), 'é'.repeat(129), '😀'.repeat(64), '😀'.repeat(65)];
    const uuids = [
      claims.c,
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '00000000-0000-0000-0000-000000000001',
      'fffffffe-ffff-ffff-ffff-ffffffffffff',
      '7b0c1d9e-1111-0222-8333-444455556666',
      '7b0c1d9e-1111-1222-b333-444455556666',
      '7b0c1d9e-1111-8222-9333-444455556666',
      '7b0c1d9e-1111-9222-8333-444455556666',
      '7b0c1d9e-1111-4222-7333-444455556666',
      '7b0c1d9e-1111-4222-c333-444455556666',
    ];
    const integers = [0n, 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n - 1n];
    let seed = 7;
    const pick = <T>(values: readonly T[]): T => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return values[(seed >>> 8) % values.length]!;
    };
    const valid: Fields = { ...claims, n: BigInt(claims.n), e: BigInt(claims.e), t: BigInt(claims.t) };
    const choices: { [K in keyof Fields]-?: ReadonlyArray<Fields[K]> } = {
      s: texts,
      c: uuids,
      l: uuids,
      r: uuids,
      p: placements,
      u: uuids,
      m: ['tCPM', 'CPC', 'CPA'],
      n: integers,
      e: integers,
      t: integers,
      k: texts,
    };
    const names = Object.keys(choices) as Array<keyof Fields>;
    for (let round = 0; round < 3000; round++) {
      // Mostly one field away from valid claims, so that each limit is met alone; sometimes several.
      const fields: Fields = { ...valid, ...(pick([true, false]) ? { k: 'user-key' } : {}) };
      const changes = pick([1, 1, 1, 2, 3]);
      for (let change = 0; change < changes; change++) {
        const name = pick(names);
        (fields as Record<string, unknown>)[name] = pick(choices[name] as readonly unknown[]);
      }
      const asNumbers = { ...fields, n: Number(fields.n), e: Number(fields.e), t: Number(fields.t) };
      // A number from past 2^53 is not the payload's value: the schema sees one that is not safe either.
      const unsafe = [fields.n, fields.e, fields.t].some((value) => value > 2n ** 53n - 1n);
      const expected = trackingClaimsSchema.safeParse(unsafe ? { ...asNumbers, n: 2 ** 53 } : asNumbers);
      const token = format2Token(encode(fields));
      const verdict = verifyTrackingToken(token, secret, 0);
      if (expected.success && asNumbers.e > 0) expect(verdict, JSON.stringify(asNumbers)).toEqual({ valid: true, claims: expected.data });
      else if (!expected.success) expect(verdict, JSON.stringify(asNumbers)).toEqual({ valid: false, reason: 'bad_token' });
      expect(unverifiedTrackingClaims(token)).toEqual(expected.success ? expected.data : undefined);
    }
  });

  it('answer bad_token for a format 1 payload the claims schema refuses, and drop what it does not know', () => {
    const refused: unknown[] = [
      { ...claims, c: 'not-a-uuid' },
      { ...claims, m: 'CPV' },
      { ...claims, n: -1 },
      { ...claims, n: 1.5 },
      { ...claims, e: 0 },
      { ...claims, s: '' },
      { ...claims, s: 'x'.repeat(65) },
      { ...claims, k: null },
      { ...claims, t: '1' },
      [claims],
      null,
    ];
    for (const payload of refused) {
      expect(trackingClaimsSchema.safeParse(payload).success).toBe(false);
      expect(verifyTrackingToken(format1Token(payload), secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    }
    expect(verifyTrackingToken(format1Token({ ...claims, extra: 1 }), secret, nowMs)).toEqual({ valid: true, claims });
  });

  it('answer expired_token with the claims once the expiry has passed', () => {
    const token = signTrackingToken(claims, secret);
    expect(verifyTrackingToken(token, secret, claims.e * 1000)).toEqual({ valid: true, claims });
    expect(verifyTrackingToken(token, secret, claims.e * 1000 + 1)).toEqual({ valid: false, reason: 'expired_token', claims });
  });

  it('still show what a tampered token of either format says it is about, for the audit trail', () => {
    const token = signTrackingToken(claims, secret);
    const tampered = token.slice(0, -1) + (token.at(-1) === 'A' ? 'B' : 'A');
    expect(verifyTrackingToken(tampered, secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    expect(unverifiedTrackingClaims(tampered)).toEqual(claims);
    expect(unverifiedTrackingClaims(format1Token(claims, 'another secret'))).toEqual(claims);
    expect(unverifiedTrackingClaims(format2Token(layout(claims), 'another secret'))).toEqual(claims);
    for (const nothing of ['', 'not a token', format2Token(layout(claims, { flags: 9 })), format1Token({ ...claims, c: 'x' })]) {
      expect(unverifiedTrackingClaims(nothing)).toBeUndefined();
    }
  });

  it('decode a forged format 1 payload with a lone surrogate in its text to nothing: ClickHouse cannot parse it in a spooled row (try41 F5)', () => {
    for (const forged of [{ ...claims, p: 'fraud\ud800below' }, { ...claims, s: 'serve\udfff' }, { ...claims, k: '\ud83d' }]) {
      expect(unverifiedTrackingClaims(format1Token(forged, 'not the secret'))).toBeUndefined();
      expect(verifyTrackingToken(format1Token(forged, 'not the secret'), secret, nowMs)).toEqual({ valid: false, reason: 'bad_token' });
    }
    // A pair is one character, kept as sent.
    const paired = { ...claims, p: 'chat-\ud83d\ude00' };
    expect(unverifiedTrackingClaims(format1Token(paired, 'not the secret'))).toEqual(paired);
  });
});

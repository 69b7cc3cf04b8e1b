import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256, hmacSha256Key } from '../../src/tracking/hmacSha256.js';

describe('hmacSha256', () => {
  it('computes what node:crypto computes, for every message length over three blocks and keys of every size class', () => {
    const keys = [Buffer.alloc(0), Buffer.from('k'), randomBytes(32), randomBytes(63), randomBytes(64), randomBytes(65), randomBytes(200)];
    const message = randomBytes(200);
    const out = Buffer.alloc(40);
    for (const key of keys) {
      const prepared = hmacSha256Key(key);
      for (let length = 0; length <= message.length; length++) {
        hmacSha256(prepared, message, length, out, 5);
        expect(out.subarray(5, 37).toString('hex'), `key ${key.length} bytes, message ${length} bytes`).toBe(
          createHmac('sha256', key).update(message.subarray(0, length)).digest('hex'),
        );
      }
    }
  });

  it('matches the RFC 4231 test vectors', () => {
    const out = Buffer.alloc(32);
    const vectors = [
      { key: Buffer.alloc(20, 0x0b), data: Buffer.from('Hi There'), mac: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7' },
      { key: Buffer.from('Jefe'), data: Buffer.from('what do ya want for nothing?'), mac: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843' },
      {
        key: Buffer.alloc(131, 0xaa),
        data: Buffer.from('Test Using Larger Than Block-Size Key - Hash Key First'),
        mac: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
      },
    ];
    for (const { key, data, mac } of vectors) {
      hmacSha256(hmacSha256Key(key), data, data.length, out, 0);
      expect(out.toString('hex')).toBe(mac);
    }
  });

  it('hashes long messages too', () => {
    const key = hmacSha256Key(Buffer.from('secret'));
    const out = Buffer.alloc(32);
    // Past 64 KiB a message goes through the hash's memory in parts.
    for (const length of [5000, 65_463, 65_464, 65_536, 130_001]) {
      const message = randomBytes(length);
      hmacSha256(key, message, message.length, out, 0);
      expect(out.toString('hex'), `${length} bytes`).toBe(createHmac('sha256', 'secret').update(message).digest('hex'));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { newServeId, readServeId, serveIdParts } from '../../src/serving/serveId.js';

describe('serve ids', () => {
  it('start with the serve time, so the serves of the same minutes sort together in serve_events_v1', () => {
    const nowMs = Date.parse('2026-11-23T17:40:00.123Z');
    const id = newServeId(nowMs);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(id, 'base64url').readUIntBE(0, 6)).toBe(nowMs);

    // 5 characters are the time's top 30 bits: ids 2^18 ms (about 4 minutes) apart or less share them.
    const blockStart = Math.floor(nowMs / 2 ** 18) * 2 ** 18;
    const sameBlock = [blockStart, blockStart + 1, blockStart + 2 ** 18 - 1].map((ms) => newServeId(ms).slice(0, 5));
    expect(new Set(sameBlock).size).toBe(1);
    expect(newServeId(blockStart - 86_400_000).slice(0, 5)).not.toBe(sameBlock[0]);
  });

  it('read back as their serve time and two numbers that tell ids of the same millisecond apart', () => {
    const nowMs = Date.parse('2026-11-25T05:50:00.456Z');
    const [a, b] = [newServeId(nowMs), newServeId(nowMs)];
    readServeId(a);
    const first = { ...serveIdParts };
    expect(first.time).toBe(nowMs);
    readServeId(b);
    expect(serveIdParts.time).toBe(nowMs);
    expect([serveIdParts.high, serveIdParts.low]).not.toEqual([first.high, first.low]);
    readServeId(a);
    expect(serveIdParts).toEqual(first);
    // An imported event's or a forged id: no serve time.
    for (const other of ['2b5c6f0e-1c1e-4b8e-9d7a-0a3c5e7f9b11', 'short', `${a.slice(0, 21)}*`]) {
      readServeId(other);
      expect(serveIdParts.time).toBe(-1);
    }
  });

  it('do not repeat', () => {
    const nowMs = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newServeId(nowMs)));
    expect(ids.size).toBe(10_000);
  });
});

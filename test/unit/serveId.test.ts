import { describe, expect, it } from 'vitest';
import { newServeId } from '../../src/serving/adPayload.js';

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

  it('do not repeat', () => {
    const nowMs = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newServeId(nowMs)));
    expect(ids.size).toBe(10_000);
  });
});

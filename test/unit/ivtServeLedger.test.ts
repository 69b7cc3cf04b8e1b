import { describe, expect, it } from 'vitest';
import { newServeId } from '../../src/serving/serveId.js';
import { ServeLedger, type ServeRecord } from '../../src/tracking/serveLedger.js';

describe('serve ledger (per-process duplicate and click-quality memory)', () => {
  it('keeps the earliest impression time and never unsets a counted flag', () => {
    const ledger = new ServeLedger(10);
    ledger.record('s1', { impressionAt: 1_700_000_002_000, impressionCounted: false });
    ledger.record('s1', { impressionAt: 1_700_000_001_000, impressionCounted: true });
    ledger.record('s1', { impressionAt: 1_700_000_003_000, impressionCounted: false, clickCounted: true });
    ledger.record('s1', { clickCounted: false });
    expect(ledger.get('s1')).toEqual({ impressionAt: 1_700_000_001_000, impressionCounted: true, clickCounted: true });
  });

  it('knows nothing of a serve it never saw, and a click-only serve has no impression time', () => {
    const ledger = new ServeLedger(10);
    expect(ledger.get('unknown')).toBeUndefined();
    ledger.record('s2', { clickCounted: false });
    expect(ledger.get('s2')).toEqual({ impressionAt: 0, impressionCounted: false, clickCounted: false });
  });

  it('tells whether an impression was counted, as get() does', () => {
    const ledger = new ServeLedger(10);
    expect(ledger.impressionCounted('s3')).toBe(false);
    ledger.record('s3', { impressionAt: 1_700_000_001_000, impressionCounted: false, clickCounted: true });
    expect(ledger.impressionCounted('s3')).toBe(false);
    ledger.record('s3', { impressionAt: 1_700_000_002_000, impressionCounted: true });
    expect(ledger.impressionCounted('s3')).toBe(true);
    ledger.uncountImpression('s3');
    expect(ledger.impressionCounted('s3')).toBe(false);
    expect(ledger.get('s3')).toEqual({ impressionAt: 1_700_000_001_000, impressionCounted: false, clickCounted: true });
  });

  it('forgets the oldest serve first beyond its capacity', () => {
    const ledger = new ServeLedger(2);
    ledger.record('a', { impressionAt: 1 });
    ledger.record('b', { impressionAt: 2 });
    ledger.record('a', { impressionCounted: true });
    ledger.record('c', { impressionAt: 3 });
    expect(ledger.get('a')).toBeUndefined();
    expect(ledger.get('b')?.impressionAt).toBe(2);
    expect(ledger.get('c')?.impressionAt).toBe(3);
  });
});

describe('serve ledger with serving\'s ids (kept as numbers)', () => {
  /** A reference: the Map the ledger was until session 41, the oldest serve forgotten first. */
  class MapLedger {
    readonly serves = new Map<string, { impressionAt: number; impressionCounted: boolean; clickCounted: boolean }>();
    constructor(private readonly capacity: number) {}
    record(serveId: string, update: Partial<ServeRecord>): void {
      const known = this.serves.get(serveId);
      if (known === undefined && this.serves.size >= this.capacity) this.serves.delete(this.serves.keys().next().value!);
      const at = update.impressionAt ?? 0;
      const before = known?.impressionAt ?? 0;
      this.serves.set(serveId, {
        impressionAt: before === 0 ? at : at === 0 ? before : Math.min(before, at),
        impressionCounted: (known?.impressionCounted ?? false) || (update.impressionCounted ?? false),
        clickCounted: (known?.clickCounted ?? false) || (update.clickCounted ?? false),
      });
    }
  }

  it('answers as a Map of the same capacity through every forgetting, ids of other shapes beside them', () => {
    const capacity = 97;
    const ledger = new ServeLedger(capacity);
    const reference = new MapLedger(capacity);
    const others = new MapLedger(capacity);
    const ids: string[] = [];
    let now = 1_700_000_000_000;
    // A fixed sequence (a linear congruential generator): serves made many to a millisecond, some ids
    // sharing all but a character, serves seen again (impressions, clicks, repeats) while still known and after.
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let step = 0; step < 20_000; step++) {
      if (next(3) === 0) now += next(5);
      const action = next(10);
      if (action < 5 || ids.length === 0) {
        const id = next(4) === 0 && ids.length > 0 ? ids[ids.length - 1]!.slice(0, 21) + 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[next(26)] : newServeId(now);
        ids.push(id);
        ledger.record(id, { impressionAt: now, impressionCounted: true });
        reference.record(id, { impressionAt: now, impressionCounted: true });
      } else if (action < 8) {
        const id = ids[ids.length - 1 - next(Math.min(ids.length, 3 * capacity))]!;
        const update = action === 6 ? { clickCounted: true } : { impressionAt: now };
        ledger.record(id, update);
        reference.record(id, update);
      } else {
        const id = `legacy-${next(500)}`;
        ledger.record(id, { impressionAt: now, clickCounted: action === 9 });
        others.record(id, { impressionAt: now, clickCounted: action === 9 });
      }
    }
    expect(reference.serves.size).toBe(capacity);
    for (const id of new Set(ids)) {
      expect(ledger.get(id)).toEqual(reference.serves.get(id));
      expect(ledger.impressionCounted(id)).toBe(reference.serves.get(id)?.impressionCounted ?? false);
    }
    for (let i = 0; i < 500; i++) expect(ledger.get(`legacy-${i}`)).toEqual(others.serves.get(`legacy-${i}`));
  });

  it('takes back a counted impression of a serve kept as numbers', () => {
    const ledger = new ServeLedger(4);
    const id = newServeId(1_700_000_000_000);
    ledger.record(id, { impressionAt: 1_700_000_000_500, impressionCounted: true, clickCounted: true });
    ledger.uncountImpression(id);
    expect(ledger.get(id)).toEqual({ impressionAt: 1_700_000_000_500, impressionCounted: false, clickCounted: true });
    expect(ledger.get(newServeId(1_700_000_000_000))).toBeUndefined();
  });
});

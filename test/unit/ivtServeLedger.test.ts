import { describe, expect, it } from 'vitest';
import { ServeLedger } from '../../src/tracking/serveLedger.js';

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

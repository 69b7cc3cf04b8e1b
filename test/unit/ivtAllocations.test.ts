import { describe, expect, it } from 'vitest';
import { allocationGaps, type AnnouncedRow } from '../../src/ivt/ipv6Allocations.js';

// Keys are the top 64 bits of IPv6 addresses: 0x2604a88000020000n is 2604:a880:2::/64.
const NONE_AFTER = 1n << 64n;

function row(start: bigint, end: bigint, label: string, foreignEndBefore: bigint, foreignStartAfter: bigint): AnnouncedRow {
  return { start, end, label, foreignEndBefore, foreignStartAfter };
}

describe('IPv6 allocation gaps of hosting networks', () => {
  it('fills the shortest prefix (from /29) around a row that no other network has a row in', () => {
    // 2604:a880:2:d0::/63 announced; another network starts at 2604:a881:: and ends before 2604:a880::.
    const gaps = allocationGaps([row(0x2604a880000200d0n, 0x2604a880000200d1n, 'DO', 0x2604a840ffffffffn, 0x2604a88100000000n)]);
    expect(gaps).toEqual([
      { start: 0x2604a88000000000n, end: 0x2604a880000200cfn, label: 'DO' },
      { start: 0x2604a880000200d2n, end: 0x2604a880ffffffffn, label: 'DO' },
    ]);
  });

  it('fills between the rows of one allocation with the label of the row before, never over the rows themselves', () => {
    const before = 0x2600180000000000n;
    const after = 0x2600191000000000n;
    const gaps = allocationGaps([
      row(0x2600190000000000n, 0x26001901ffffffffn, 'Cloud', before, after),
      row(0x2600190200000000n, 0x260019020000ffffn, 'Ireland', before, after),
    ]);
    expect(gaps).toEqual([
      { start: 0x2600190200010000n, end: 0x26001907ffffffffn, label: 'Ireland' },
    ]);
  });

  it('fills nothing when another network has a row in the same /64', () => {
    expect(allocationGaps([row(0x2a01000000000000n, 0x2a01000000000000n, 'Host', 0x2a00ffffffffffffn, 0x2a01000000000000n)])).toEqual([]);
  });

  it('never reaches shorter than /29, even with nobody else anywhere', () => {
    const [first] = allocationGaps([row(0x2a0e770000000000n, 0x2a0e7700ffffffffn, 'Host', -1n, NONE_AFTER)]);
    expect(first).toEqual({ start: 0x2a0e770100000000n, end: 0x2a0e7707ffffffffn, label: 'Host' });
  });
});

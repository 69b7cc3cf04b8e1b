import { describe, expect, it } from 'vitest';
import { cidrBounds } from '../../src/ivt/addressKeys.js';
import { RangeTableBuilder } from '../../src/ivt/rangeTable.js';

describe('range tables (sorted, merged, binary search)', () => {
  it('finds a key inside a range and nothing outside, at the inclusive bounds', () => {
    const builder = new RangeTableBuilder(1);
    builder.add(100n, 199n, 'a');
    builder.add(300n, 300n, 'b');
    const table = builder.build();
    expect([99, 100, 150, 199, 200, 299, 300, 301].map((key) => table.find(key))).toEqual([
      undefined,
      'a',
      'a',
      'a',
      undefined,
      undefined,
      'b',
      undefined,
    ]);
  });

  it('merges adjacent and overlapping ranges of the same label into one, whatever the order they came in', () => {
    const builder = new RangeTableBuilder(1);
    builder.add(200n, 299n, 'a');
    builder.add(100n, 199n, 'a');
    builder.add(150n, 250n, 'a');
    builder.add(0xffffff00n, 0xffffffffn, 'top');
    const table = builder.build();
    expect(table.size).toBe(2);
    expect(table.find(100)).toBe('a');
    expect(table.find(299)).toBe('a');
    expect(table.find(0xffffffff)).toBe('top');
  });

  it('gives an overlap to the range that starts first when labels differ', () => {
    const builder = new RangeTableBuilder(1);
    builder.add(100n, 200n, 'first');
    builder.add(150n, 300n, 'second');
    builder.add(120n, 130n, 'inside');
    const table = builder.build();
    expect([120, 200, 201, 300].map((key) => table.find(key))).toEqual(['first', 'first', 'second', 'second']);
  });

  it('compares two-word (IPv6 /64) keys on the high word, then the low word', () => {
    const builder = new RangeTableBuilder(2);
    const hetzner = cidrBounds('2a01:4f8::/29');
    const small = cidrBounds('2001:db8:0:1::/64');
    builder.add(hetzner.start, hetzner.end, 'hetzner');
    builder.add(small.start, small.end, 'small');
    const table = builder.build();
    expect(table.find(0x2a0104f8, 0)).toBe('hetzner');
    expect(table.find(0x2a0104ff, 0xffffffff)).toBe('hetzner');
    expect(table.find(0x2a010500, 0)).toBeUndefined();
    expect(table.find(0x20010db8, 1)).toBe('small');
    expect(table.find(0x20010db8, 2)).toBeUndefined();
  });

  it('merges and trims two-word ranges across the end of a low word, and takes one-word keys as numbers', () => {
    const builder = new RangeTableBuilder(2);
    builder.add(0x1_00000000n, 0x1_ffffffffn, 'a');
    builder.add(0x2_00000000n, 0x2_0000000fn, 'a');
    builder.add(0x3_00000000n, 0x3_ffffffffn, 'c');
    builder.add(0x3_80000000n, 0x4_0000000fn, 'd');
    const table = builder.build();
    expect(table.size).toBe(3);
    expect([table.find(1, 0), table.find(2, 0xf), table.find(2, 0x10)]).toEqual(['a', 'a', undefined]);
    expect([table.find(3, 0xffffffff), table.find(4, 0), table.find(4, 0xf), table.find(4, 0x10)]).toEqual(['c', 'd', 'd', undefined]);

    const numbers = new RangeTableBuilder(1);
    numbers.addNumbers(21, 30, 'x');
    numbers.addNumbers(10, 20, 'x');
    numbers.addNumbers(5, 4, 'never');
    const merged = numbers.build();
    expect(merged.size).toBe(1);
    expect([4, 5, 10, 25, 30, 31].map((key) => merged.find(key))).toEqual([undefined, undefined, 'x', 'x', 'x', undefined]);
  });
});

describe('CIDR bounds', () => {
  it('covers IPv4 prefixes and single addresses exactly', () => {
    expect(cidrBounds('10.1.2.0/24')).toEqual({ family: 'ipv4', start: 0x0a010200n, end: 0x0a0102ffn });
    expect(cidrBounds('10.1.2.3')).toEqual({ family: 'ipv4', start: 0x0a010203n, end: 0x0a010203n });
    expect(cidrBounds('0.0.0.0/0')).toEqual({ family: 'ipv4', start: 0n, end: 0xffffffffn });
  });

  it('keys IPv6 on its top 64 bits: prefixes longer than /64 cover their /64', () => {
    expect(cidrBounds('2001:db8::/32')).toEqual({ family: 'ipv6', start: 0x20010db800000000n, end: 0x20010db8ffffffffn });
    expect(cidrBounds('2001:db8:1:2::/120')).toEqual({ family: 'ipv6', start: 0x20010db800010002n, end: 0x20010db800010002n });
  });

  it('throws on anything that is not an address or a CIDR', () => {
    expect(() => cidrBounds('10.0.0.0/33')).toThrow();
    expect(() => cidrBounds('example.com')).toThrow();
  });
});

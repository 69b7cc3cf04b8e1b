import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { ipv4Key, ipv6PrefixWords } from '../../src/ivt/addressKeys.js';
import { parseAddressText } from '../../src/ivt/addressText.js';
import { createIpClassifier } from '../../src/ivt/ipClassifier.js';
import { RangeTableBuilder } from '../../src/ivt/rangeTable.js';

/** Deterministic pseudo-random numbers, so a failure names an input that fails again. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

const random = seeded(13);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Address texts as clients and proxies write them, and as they should not: zero runs, upper case, leading zeros, junk. */
function addressLike(): string {
  if (random() < 0.4) {
    const octets = Array.from({ length: pick([3, 4, 4, 4, 5]) }, () => String(pick([0, 1, 10, 127, 169, 172, 192, 224, 255, 256, Math.floor(random() * 256)])));
    if (random() < 0.05) octets[0] = `0${octets[0]}`;
    return octets.join('.');
  }
  const groups = Array.from({ length: 8 }, () => (random() < 0.4 ? '0' : Math.floor(random() * 65536).toString(16)));
  if (random() < 0.2) groups[0] = pick(['2001', '2002', 'fe80', 'fc00', 'ff02', '64', '100', '2001:db8'.split(':')[0]!, '0']);
  let text = groups.map((group) => (random() < 0.1 ? group.toUpperCase() : random() < 0.05 ? group.padStart(4, '0') : group)).join(':');
  if (random() < 0.5) text = text.replace(/(^|:)0(:0)+(:|$)/, '::');
  if (random() < 0.03) text += '%eth0';
  if (random() < 0.03) text = `::ffff:${Math.floor(random() * 256)}.1.2.3`;
  return text;
}

describe('fast address parser', () => {
  it('agrees with ipaddr.js on every address it accepts: same words and the same RFC 5952 text', () => {
    let accepted = 0;
    for (let round = 0; round < 20_000; round++) {
      const text = addressLike();
      const fast = parseAddressText(text);
      if (!fast) continue;
      accepted += 1;
      const slow = ipaddr.process(text);
      expect(fast.text, text).toBe(slow.toString());
      if (fast.family === 'ipv4') expect(fast.key, text).toBe(ipv4Key(slow as ipaddr.IPv4));
      else expect([fast.high, fast.low], text).toEqual(ipv6PrefixWords(slow as ipaddr.IPv6));
    }
    expect(accepted).toBeGreaterThan(10_000);
  });

  it('reads :: at the start, in the middle and at the end, and upper case, as ipaddr.js does', () => {
    for (const text of ['2001:db8::', '2001:db8::1', '2001:0:0:1::1', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:0:0:2:0:0:0:3', '1:0:0:0:2:0:0:0', 'ABCD:EF01::9', '2a01:4f8:1c1c:7b1e::1']) {
      const fast = parseAddressText(text);
      const slow = ipaddr.process(text);
      expect(fast?.text, text).toBe(slow.toString());
      expect(fast && fast.family === 'ipv6' ? [fast.high, fast.low] : undefined, text).toEqual(ipv6PrefixWords(slow as ipaddr.IPv6));
    }
    for (const text of ['1:2:3:4:5:6:7:8::', '::1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7', '1:', ':1::', '1:::2', '12345::1']) {
      expect(parseAddressText(text), text).toBeUndefined();
    }
  });

  it('leaves leading zeros (octal to ipaddr.js), embedded IPv4, zone ids and ::/64 to ipaddr.js', () => {
    for (const text of ['010.1.2.3', '::ffff:1.2.3.4', 'fe80::1%eth0', '::1', '::', '1.2.3', '1.2.3.4.5', '1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', 'g::1', '']) {
      expect(parseAddressText(text), text).toBeUndefined();
    }
  });

  it('answers a text parsed again, and the text its parse answered, as the first time, whatever was parsed in between', () => {
    // A parse of its own: what was parsed just before is forgotten (the parser remembers one text).
    const fresh = (text: string) => {
      parseAddressText('not an address');
      return parseAddressText(text);
    };
    for (let round = 0; round < 5_000; round++) {
      const text = addressLike();
      const other = addressLike();
      const first = parseAddressText(text);
      expect(first, text).toEqual(fresh(text));
      for (const again of [text, text, first?.text, other, text, first?.text]) {
        if (again !== undefined) expect(parseAddressText(again), again).toEqual(fresh(again));
      }
      if (first) expect(parseAddressText(first.text), text).toEqual(first);
    }
  });
});

describe('classifier fast path', () => {
  it('gives the verdict of the ipaddr.js path on random addresses, special ranges included', () => {
    const datacenter = { ipv4: new RangeTableBuilder(1), ipv6: new RangeTableBuilder(2) };
    datacenter.ipv4.add(0n, 0x7fffffffn, 'low half');
    datacenter.ipv6.add(0x2000000000000000n, 0x2fffffffffffffffn, '2000::/4');
    const empty = { ipv4: new RangeTableBuilder(1).build(), ipv6: new RangeTableBuilder(2).build() };
    const classify = createIpClassifier({ datacenter: { ipv4: datacenter.ipv4.build(), ipv6: datacenter.ipv6.build() }, relay: empty, allowPrivate: false });
    for (let round = 0; round < 20_000; round++) {
      const text = addressLike();
      let expected;
      try {
        const parsed = ipaddr.process(text);
        const ip = parsed.toString();
        if (parsed.range() !== 'unicast') expected = { ip, ipClass: 'private', network: '', ivt: 'private_ip' };
        else {
          const high = parsed.kind() === 'ipv4' ? ipv4Key(parsed as ipaddr.IPv4) : ipv6PrefixWords(parsed as ipaddr.IPv6)[0];
          const inside = parsed.kind() === 'ipv4' ? high < 0x80000000 : high >= 0x20000000 && high <= 0x2fffffff;
          expected = inside
            ? { ip, ipClass: 'datacenter', network: parsed.kind() === 'ipv4' ? 'low half' : '2000::/4', ivt: 'datacenter' }
            : { ip, ipClass: 'public', network: '', ivt: '' };
        }
      } catch {
        expected = { ip: text.slice(0, 64), ipClass: 'unknown', network: '', ivt: 'invalid_ip' };
      }
      expect(classify(text), text).toEqual(expected);
    }
  });
});

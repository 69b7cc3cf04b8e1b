import { describe, expect, it } from 'vitest';
import { countryOfAddress } from '../../src/geo/countryOfAddress.js';

describe('countryOfAddress', () => {
  // The plain forms take the fast parser; the mapped and zoned forms of the same addresses only
  // ipaddr.js reads. Both must find the same country.
  it('finds the same country whichever parser reads the address', () => {
    for (const ipv4 of ['8.8.8.8', '81.2.69.160', '203.0.113.7', '1.1.1.1']) {
      expect(countryOfAddress(`::ffff:${ipv4}`)).toBe(countryOfAddress(ipv4));
    }
    for (const ipv6 of ['2a00:1450:4001:810::200e', '2001:4860:4860::8888', '2c0f:fb50:4003::1']) {
      expect(countryOfAddress(`${ipv6}%eth0`)).toBe(countryOfAddress(ipv6));
    }
    expect(countryOfAddress('8.8.8.8')).toMatch(/^[A-Z]{2}$/);
    expect(countryOfAddress('2a00:1450:4001:810::200e')).toMatch(/^[A-Z]{2}$/);
  });

  it('tells no country for loopback and private ranges the tables leave out, nor for what is not an address', () => {
    for (const text of ['10.0.0.1', '::1', 'not an address', '', '999.1.1.1']) {
      expect(countryOfAddress(text)).toBeUndefined();
    }
  });
});

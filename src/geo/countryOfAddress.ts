import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import { ipv4Key, ipv6PrefixWords } from '../ivt/addressKeys.js';
import { RangeTableBuilder, type RangeTable } from '../ivt/rangeTable.js';

const require = createRequire(import.meta.url);

interface CountryTables {
  ipv4: RangeTable;
  ipv6: RangeTable;
}

let tables: CountryTables | undefined;

/**
 * The ISO 3166-1 alpha-2 country of an address, from @ip-location-db/geo-whois-asn-country (public
 * domain, CC0: RIR whois and ASN data), or undefined when it cannot be told (private, reserved or
 * unlisted addresses, or not an address). The tables are built on first use, once per process
 * (a few hundred ms); IPv6 ranges are keyed by their top 64 bits, like the IVT tables.
 */
export function countryOfAddress(ip: string): string | undefined {
  const { ipv4, ipv6 } = (tables ??= loadTables());
  // Every serve with user.ip asks when a line item targets countries: most addresses are plain
  // dotted quads, read here without ipaddr.js's objects.
  const key = dottedQuadKey(ip);
  if (key !== undefined) return ipv4.find(key);
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip);
  } catch {
    return undefined;
  }
  if (address.kind() === 'ipv4') return ipv4.find(ipv4Key(address as ipaddr.IPv4));
  const [high, low] = ipv6PrefixWords(address as ipaddr.IPv6);
  return ipv6.find(high, low);
}

/**
 * The table key of a plain dotted-decimal IPv4 address ("73.162.4.5"), or undefined for any other
 * text, left to ipaddr.js: IPv6, IPv4-mapped IPv6, and octets with a leading zero (which ipaddr.js
 * reads as octal).
 */
function dottedQuadKey(text: string): number | undefined {
  let key = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      if (digits === 0 || dots === 3) return undefined;
      key = key * 256 + octet;
      octet = 0;
      digits = 0;
      dots += 1;
      continue;
    }
    if (code < 48 || code > 57 || (digits > 0 && octet === 0)) return undefined;
    octet = octet * 10 + (code - 48);
    digits += 1;
    if (octet > 255) return undefined;
  }
  return dots === 3 && digits > 0 ? key * 256 + octet : undefined;
}

/** Loads the tables now, so the first serve or pixel does not pay for it. */
export function loadCountryTables(): void {
  tables ??= loadTables();
}

function loadTables(): CountryTables {
  const ipv4 = new RangeTableBuilder(1);
  const ipv6 = new RangeTableBuilder(2);
  // Rows are `start,end,CC` with decimal bounds; an IPv6 bound keeps its top 64 bits.
  forEachRow('@ip-location-db/geo-whois-asn-country/geo-whois-asn-country-ipv4-num.csv', (start, end, country) => {
    ipv4.add(BigInt(start), BigInt(end), country);
  });
  forEachRow('@ip-location-db/geo-whois-asn-country/geo-whois-asn-country-ipv6-num.csv', (start, end, country) => {
    ipv6.add(BigInt(start) >> 64n, BigInt(end) >> 64n, country);
  });
  return { ipv4: ipv4.build(), ipv6: ipv6.build() };
}

function forEachRow(file: string, add: (start: string, end: string, country: string) => void): void {
  for (const line of readFileSync(require.resolve(file), 'latin1').split('\n')) {
    const [start, end, country] = line.split(',');
    if (start && end && country && /^[A-Z]{2}$/.test(country.trim())) add(start, end, country.trim());
  }
}

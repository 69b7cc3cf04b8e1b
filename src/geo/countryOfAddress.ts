import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import ipaddr from 'ipaddr.js';
import { ipv4Key, ipv6PrefixWords } from '../ivt/addressKeys.js';
import { parseAddressText } from '../ivt/addressText.js';
import { loadPrebuiltTables, type PrebuiltTables } from '../ivt/prebuiltTables.js';
import { forEachRangeRow } from '../ivt/rangeRows.js';
import { RangeTable, RangeTableBuilder, type RangeTableParts } from '../ivt/rangeTable.js';

const require = createRequire(import.meta.url);

interface CountryTables {
  ipv4: RangeTable;
  ipv6: RangeTable;
}

/** What the country worker sends: the tables' parts, and why they were built from the CSV files if they were. */
export interface CountryTablesMessage {
  ipv4: RangeTableParts;
  ipv6: RangeTableParts;
  built: string | undefined;
}

let tables: CountryTables | undefined;
let loading: Promise<void> | undefined;

/**
 * The ISO 3166-1 alpha-2 country of an address, from @ip-location-db/geo-whois-asn-country (public
 * domain, CC0: RIR whois and ASN data), or undefined when it cannot be told (private, reserved or
 * unlisted addresses, or not an address). The tables are loaded on first use, once per process
 * (loadCountryTables loads them at start); IPv6 ranges are keyed by their top 64 bits, like the IVT tables.
 */
export function countryOfAddress(ip: string): string | undefined {
  const { ipv4, ipv6 } = (tables ??= loadPrebuiltTables(countryTables));
  // The forms requests carry take the IVT classifier's parser (every pixel looks its country up);
  // it reads them as ipaddr.js does and leaves every other form to it.
  const fast = parseAddressText(ip);
  if (fast) return fast.family === 'ipv4' ? ipv4.find(fast.key) : ipv6.find(fast.high, fast.low);
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
 * Loads the tables before the first serve or pixel, so neither pays for it: in a worker thread (the
 * prebuilt file's check reads the CSV files), so that the start goes on meanwhile (the ad index is
 * read and built on the main thread). Loaded here instead when no worker can be started (tests run
 * the TypeScript sources, where the worker's compiled file does not exist). `onBuilt` is told why
 * they were built from the CSV files, when they were (prebuiltTables.ts).
 */
export function loadCountryTables(onBuilt?: (why: string) => void): Promise<void> {
  if (tables) return Promise.resolve();
  return (loading ??= new Promise((resolve) => {
    const buildHere = () => {
      tables ??= loadPrebuiltTables(countryTables, onBuilt);
      resolve();
    };
    let worker: Worker;
    try {
      worker = new Worker(new URL('./countryTablesWorker.js', import.meta.url));
    } catch {
      buildHere();
      return;
    }
    worker.once('message', (parts: CountryTablesMessage) => {
      if (parts.built !== undefined) onBuilt?.(parts.built);
      tables ??= { ipv4: RangeTable.fromParts(parts.ipv4), ipv6: RangeTable.fromParts(parts.ipv6) };
      resolve();
      void worker.terminate();
    });
    worker.once('error', buildHere);
    worker.once('exit', () => {
      if (!tables) buildHere();
    });
  }));
}

const countryFiles = {
  ipv4: require.resolve('@ip-location-db/geo-whois-asn-country/geo-whois-asn-country-ipv4-num.csv'),
  ipv6: require.resolve('@ip-location-db/geo-whois-asn-country/geo-whois-asn-country-ipv6-num.csv'),
};

/** Both tables, from the package's files, kept by `npm run build` in dist/country-ranges.bin (here from dist/src/geo/). */
export const countryTables: PrebuiltTables<CountryTables> = {
  name: 'the country tables',
  file: new URL('../../country-ranges.bin', import.meta.url),
  sources: [countryFiles.ipv4, countryFiles.ipv6],
  code: [new URL('./', import.meta.url), new URL('../ivt/', import.meta.url)],
  build: buildCountryTables,
  stored: (built) => ({ ipv4: built.ipv4.parts(), ipv6: built.ipv6.parts() }),
  fromStored: (stored) => {
    const parts = stored as Record<keyof CountryTables, RangeTableParts>;
    return { ipv4: RangeTable.fromParts(parts.ipv4), ipv6: RangeTable.fromParts(parts.ipv6) };
  },
};

/** Both tables, parsed from the package's files: rows `start,end,CC` with decimal bounds; an IPv6 bound keeps its top 64 bits. */
export function buildCountryTables(): CountryTables {
  const ipv4 = new RangeTableBuilder(1);
  const ipv6 = new RangeTableBuilder(2);
  forEachCountryRow(countryFiles.ipv4, (start, end, country) => ipv4.addNumbers(Number(start), Number(end), country));
  forEachCountryRow(countryFiles.ipv6, (start, end, country) => ipv6.add(BigInt(start) >> 64n, BigInt(end) >> 64n, country));
  return { ipv4: ipv4.build(), ipv6: ipv6.build() };
}

/** The rows whose third field is a two-letter country code (other rows are skipped). */
function forEachCountryRow(file: string, add: (start: string, end: string, country: string) => void): void {
  forEachRangeRow(file, (row) => {
    const country = row.third().trim();
    if (country.length === 2 && isUpperCaseLetter(country.charCodeAt(0)) && isUpperCaseLetter(country.charCodeAt(1))) add(row.start(), row.end(), country);
  });
}

function isUpperCaseLetter(code: number): boolean {
  return code >= 65 && code <= 90;
}

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { seededRandom } from './seededRandom.js';
import { formatCidrList, rangeFeedDirectory } from '../src/ivt/cidrFiles.js';
import { createIpClassifier, type IpClassifier } from '../src/ivt/ipClassifier.js';
import { hostingNetworks } from '../src/ivt/knownNetworks.js';
import { loadNetworkTables } from '../src/ivt/networkTables.js';
import { rangeFeeds, parseAwsRanges, parseGeofeed, parseGoogleCloudRanges, parseOracleCloudRanges, validatedCidrs } from '../src/ivt/rangeFeeds.js';
import { RangeTableBuilder, type RangeTable } from '../src/ivt/rangeTable.js';

/**
 * `npx tsx bench/ivtCoverage.ts <feeds-dir>`: how much of the eight providers' published address
 * space the data-center tables recognise, built from the installed packages alone and with the
 * feeds `npm run ivt:update` fetches (written from the same documents into a temp DATA_DIR/ivt);
 * how many consumer-ISP addresses they wrongly call data-center; and the lookup cost.
 *
 * <feeds-dir> holds the providers' own documents, as they publish them: aws.json (ip-ranges.json),
 * google-cloud.json (cloud.json), azure.json (ServiceTags_Public), oracle-cloud.json, digitalocean.csv
 * and linode.csv (geofeeds), and hetzner.txt, ovh.txt (one CIDR a line: neither publishes a feed,
 * so their announced allocations). The residential sample comes from @ip-location-db/asn rows of
 * the consumer ISPs' autonomous systems. Each sample address is drawn from a uniformly chosen
 * prefix (so a provider's many small IPv4 ranges and few huge IPv6 ones weigh the same), then a
 * uniformly random address inside it; the generator is seeded, so runs repeat exactly. A missed
 * address that the package's data gives to a network that is not the provider's (space transferred
 * or sub-allocated to a customer since the feed was published) is counted apart, as `elsewhere`.
 */
const SAMPLES_PER_PROVIDER_AND_FAMILY = 2000;

const azureServiceTags = z.object({ values: z.array(z.object({ properties: z.object({ addressPrefixes: z.array(z.string()) }) })) });

/** The file of each provider, and the ivt:update feed (rangeFeeds.ts) it is the document of, if any. */
const providers: ReadonlyArray<[name: string, file: string, parse: (text: string) => string[], feed?: string]> = [
  ['AWS', 'aws.json', parseAwsRanges, 'aws'],
  ['Google Cloud', 'google-cloud.json', parseGoogleCloudRanges, 'google-cloud'],
  ['Azure', 'azure.json', (text) => azureServiceTags.parse(JSON.parse(text)).values.flatMap((value) => value.properties.addressPrefixes)],
  ['Oracle Cloud', 'oracle-cloud.json', parseOracleCloudRanges, 'oracle-cloud'],
  ['DigitalOcean', 'digitalocean.csv', parseGeofeed, 'digitalocean'],
  ['Linode', 'linode.csv', parseGeofeed, 'linode'],
  ['Hetzner', 'hetzner.txt', (text) => text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter((line) => line !== '')],
  ['OVHcloud', 'ovh.txt', (text) => text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter((line) => line !== '')],
];

/**
 * Consumer ISPs: Comcast, Deutsche Telekom, Verizon (Fios, wireless), BT, Orange France, T-Mobile US.
 * BT's and Orange's consumer IPv6 is registered to their other AS (AS5400, AS5511) in the data.
 */
const residentialNetworks: ReadonlyArray<[name: string, asns: number[]]> = [
  ['Comcast', [7922]],
  ['Deutsche Telekom', [3320]],
  ['Verizon', [701, 22394, 6167]],
  ['BT', [2856, 5400]],
  ['Orange', [3215, 5511]],
  ['T-Mobile', [21928]],
];

type Range = { family: 'ipv4' | 'ipv6'; start: bigint; end: bigint };

const random = seededRandom(13);

function randomBigint(below: bigint): bigint {
  let value = 0n;
  for (let bits = 0n; 1n << bits < below; bits += 32n) value = (value << 32n) | BigInt(Math.floor(random() * 4294967296));
  return value % below;
}

/** Full 32- or 128-bit bounds (cidrBounds keeps only the top 64 bits of IPv6, the tables' key). */
function fullBounds(cidr: string): Range {
  const [address, lengthText] = cidr.split('/') as [string, string | undefined];
  const family = address.includes(':') ? 'ipv6' : 'ipv4';
  const bits = family === 'ipv4' ? 32 : 128;
  const hostBits = BigInt(bits - Number(lengthText ?? bits));
  const start = (addressValue(address) >> hostBits) << hostBits;
  return { family, start, end: start + (1n << hostBits) - 1n };
}

function addressValue(address: string): bigint {
  if (!address.includes(':')) return address.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
  const [head, tail] = address.split('::') as [string, string | undefined];
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const parts = tail === undefined ? headParts : [...headParts, ...Array<string>(8 - headParts.length - tailParts.length).fill('0'), ...tailParts];
  return parts.reduce((value, part) => (value << 16n) | BigInt(parseInt(part, 16)), 0n);
}

function addressText(family: 'ipv4' | 'ipv6', value: bigint): string {
  if (family === 'ipv4') return [24n, 16n, 8n, 0n].map((shift) => Number((value >> shift) & 255n)).join('.');
  return Array.from({ length: 8 }, (_, index) => ((value >> BigInt(112 - 16 * index)) & 0xffffn).toString(16)).join(':');
}

/** `count` addresses, each from a uniformly chosen range; `chosen` receives the range of each. */
function sample(ranges: readonly Range[], count: number, chosen: Range[] = []): string[] {
  return Array.from({ length: count }, () => {
    const range = ranges[Math.floor(random() * ranges.length)]!;
    chosen.push(range);
    return addressText(range.family, range.start + randomBigint(range.end - range.start + 1n));
  });
}

/** The ASNs of the package rows that overlap the range (rows are sorted by start within a family). */
function rowsWithin(rows: ReadonlyArray<Range & { asn: number }>, range: Range): number[] {
  return rows.filter((row) => row.family === range.family && row.start <= range.end && row.end >= range.start).map((row) => row.asn);
}

/** Every row of @ip-location-db/asn, as full-width ranges with their ASN. */
function packageRows(): Array<Range & { asn: number }> {
  const require = createRequire(import.meta.url);
  const rows: Array<Range & { asn: number }> = [];
  for (const file of ['@ip-location-db/asn/asn-ipv4.csv', '@ip-location-db/asn/asn-ipv6.csv']) {
    for (const line of readFileSync(require.resolve(file), 'latin1').split('\n')) {
      const [start, end, asn] = line.split(',');
      if (start === undefined || end === undefined || asn === undefined) continue;
      rows.push({ family: start.includes(':') ? 'ipv6' : 'ipv4', start: addressValue(start), end: addressValue(end), asn: Number(asn) });
    }
  }
  return rows;
}

/** Which ASN the package gives an address (top 64 bits of IPv6, like the service's tables). */
function holderTables(rows: ReadonlyArray<Range & { asn: number }>): Record<'ipv4' | 'ipv6', RangeTable> {
  const ipv4 = new RangeTableBuilder(1);
  const ipv6 = new RangeTableBuilder(2);
  for (const row of rows) {
    if (row.family === 'ipv4') ipv4.add(row.start, row.end, String(row.asn));
    else ipv6.add(row.start >> 64n, row.end >> 64n, String(row.asn));
  }
  return { ipv4: ipv4.build(), ipv6: ipv6.build() };
}

function holderOf(holders: Record<'ipv4' | 'ipv6', RangeTable>, address: string): number | undefined {
  const value = addressValue(address);
  const holder = address.includes(':')
    ? holders.ipv6.find(Number(value >> 96n), Number((value >> 64n) & 0xffffffffn))
    : holders.ipv4.find(Number(value));
  return holder === undefined ? undefined : Number(holder);
}

/** A DATA_DIR (in `scratch`) whose ivt/ holds the feeds ivt:update would have written from these documents. */
function dataDirWithFeeds(feedDirectory: string, scratch: string): string {
  const dataDir = path.join(scratch, 'with-feeds');
  mkdirSync(rangeFeedDirectory(dataDir), { recursive: true });
  for (const [, file, , feedName] of providers) {
    const feed = rangeFeeds.find((candidate) => candidate.name === feedName);
    if (!feed) continue;
    const cidrs = validatedCidrs(feed, readFileSync(path.join(feedDirectory, file), 'utf8'));
    writeFileSync(path.join(rangeFeedDirectory(dataDir), `${feed.name}.cidr`), formatCidrList(path.join(feedDirectory, file), cidrs, new Date()));
  }
  return dataDir;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((part / whole) * 100).toFixed(2)} %`;
}

/** Both DATA_DIRs go in one temporary directory, removed when the run ends. */
function main(feedDirectory: string): void {
  const scratch = mkdtempSync(path.join(tmpdir(), 'ivt-coverage-'));
  try {
    measure(feedDirectory, scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function measure(feedDirectory: string, scratch: string): void {
  const packageOnlyDir = path.join(scratch, 'package-only');
  mkdirSync(packageOnlyDir);
  const startedAt = performance.now();
  const tables = loadNetworkTables(packageOnlyDir, []);
  const loadMs = performance.now() - startedAt;
  const packageOnly = createIpClassifier({ ...tables, allowPrivate: false });
  const withFeeds = createIpClassifier({ ...loadNetworkTables(dataDirWithFeeds(feedDirectory, scratch), []), allowPrivate: false });
  const rows = packageRows();
  const holders = holderTables(rows);
  const hostingAsns = new Set(hostingNetworks.map((network) => network.asn));
  const all: string[] = [];
  const isDatacenter = (classify: IpClassifier) => (address: string) => classify(address).ipClass === 'datacenter';

  console.log('| provider | family | sampled | elsewhere now | recall, package only | recall, + ivt:update feeds | missed, package only (first 2) |');
  console.log('|---|---|---|---|---|---|---|');
  const totals = { sampled: 0, elsewhere: 0, packageHits: 0, feedHits: 0 };
  for (const [name, file, parse] of providers) {
    const ranges = parse(readFileSync(path.join(feedDirectory, file), 'utf8')).map(fullBounds);
    for (const family of ['ipv4', 'ipv6'] as const) {
      const ofFamily = ranges.filter((range) => range.family === family);
      if (ofFamily.length === 0) continue;
      const prefixOf: Range[] = [];
      const addresses = sample(ofFamily, SAMPLES_PER_PROVIDER_AND_FAMILY, prefixOf);
      all.push(...addresses);
      // Given to a network that is not a hosting one: transferred or sub-allocated since the list
      // was taken. Either the address's own row is another network's, or its listed prefix holds
      // rows of other networks only.
      const elsewhere = addresses.filter((address, index) => {
        if (isDatacenter(packageOnly)(address)) return false;
        const holder = holderOf(holders, address);
        if (holder !== undefined) return !hostingAsns.has(holder);
        const owners = rowsWithin(rows, prefixOf[index]!);
        return owners.length > 0 && owners.every((asn) => !hostingAsns.has(asn));
      });
      const counted = addresses.filter((address) => !elsewhere.includes(address));
      const packageHits = counted.filter(isDatacenter(packageOnly));
      const feedHits = counted.filter(isDatacenter(withFeeds));
      const missed = counted.filter((address) => !packageHits.includes(address));
      totals.sampled += addresses.length;
      totals.elsewhere += elsewhere.length;
      totals.packageHits += packageHits.length;
      totals.feedHits += feedHits.length;
      console.log(
        `| ${name} | ${family} | ${addresses.length} | ${elsewhere.length} | ${percent(packageHits.length, counted.length)} | ` +
          `${percent(feedHits.length, counted.length)} | ${missed.slice(0, 2).join(' ')} |`,
      );
    }
  }
  const counted = totals.sampled - totals.elsewhere;
  console.log(`| **all** | | ${totals.sampled} | ${totals.elsewhere} | **${percent(totals.packageHits, counted)}** | **${percent(totals.feedHits, counted)}** | |\n`);

  console.log('| consumer ISP | family | ranges | sampled | data-center, package only | data-center, + feeds | examples |');
  console.log('|---|---|---|---|---|---|---|');
  let falsePositives = 0;
  let falsePositivesWithFeeds = 0;
  let residentialTotal = 0;
  for (const [name, asns] of residentialNetworks) {
    const wanted = new Set(asns);
    const ranges = rows.filter((row) => wanted.has(row.asn));
    // AWS Wavelength Zones run AWS servers on carrier addresses (Verizon, BT...), listed in AWS's
    // feed: data-center by design, so they are no residential sample.
    const isPublishedCloud = (address: string) => withFeeds(address).network.endsWith('.cidr');
    for (const family of ['ipv4', 'ipv6'] as const) {
      const ofFamily = ranges.filter((range) => range.family === family);
      const addresses = sample(ofFamily, SAMPLES_PER_PROVIDER_AND_FAMILY).filter((address) => !isPublishedCloud(address));
      const wrong = addresses.filter(isDatacenter(packageOnly));
      const wrongWithFeeds = addresses.filter(isDatacenter(withFeeds));
      falsePositives += wrong.length;
      falsePositivesWithFeeds += wrongWithFeeds.length;
      residentialTotal += addresses.length;
      all.push(...addresses);
      const examples = [...new Set([...wrong, ...wrongWithFeeds])].slice(0, 3).map((address) => `${address} (${withFeeds(address).network})`);
      console.log(`| ${name} | ${family} | ${ofFamily.length} | ${addresses.length} | ${wrong.length} | ${wrongWithFeeds.length} | ${examples.join(' ')} |`);
    }
  }
  console.log(`| **all** | | | ${residentialTotal} | **${falsePositives}** | **${falsePositivesWithFeeds}** | |\n`);

  for (let round = 0; round < 3; round++) for (const address of all) packageOnly(address);
  const rounds = 5;
  const lookupStartedAt = performance.now();
  for (let round = 0; round < rounds; round++) for (const address of all) packageOnly(address);
  const lookupUs = ((performance.now() - lookupStartedAt) * 1000) / (rounds * all.length);
  console.log(`tables: ${tables.datacenter.ipv4.size} IPv4 and ${tables.datacenter.ipv6.size} IPv6 data-center ranges, built in ${Math.round(loadMs)} ms`);
  console.log(`lookup: ${lookupUs.toFixed(2)} us per address (mean over ${rounds} x ${all.length} addresses, parse included)`);
}

const [feedDirectory] = process.argv.slice(2);
if (!feedDirectory) {
  console.error('usage: npx tsx bench/ivtCoverage.ts <feeds-dir>');
  process.exitCode = 2;
} else {
  main(feedDirectory);
}

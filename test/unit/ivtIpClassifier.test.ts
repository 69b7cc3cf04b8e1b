import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIpClassifier, type IpClassifier } from '../../src/ivt/ipClassifier.js';
import { RangeTable, type RangeTableParts } from '../../src/ivt/rangeTable.js';
import { loadNetworkTables, loadNetworkTablesInWorker, type NetworkTables } from '../../src/ivt/networkTables.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { firstMessageOfWorkerSource } from '../helpers/workerSource.js';

// Every address below was checked against @ip-location-db/asn: the ASN named is the one its data gives.
let tables: NetworkTables;
let classify: IpClassifier;
let loadMs = 0;

beforeAll(() => {
  const started = performance.now();
  tables = loadNetworkTables(tempDirectory('ivt-empty-'), []);
  loadMs = performance.now() - started;
  classify = createIpClassifier({ ...tables, allowPrivate: false });
});

describe('data-center addresses (hosting ASNs joined with @ip-location-db/asn)', () => {
  it.each([
    ['3.5.140.2', 'AS16509 Amazon Web Services'],
    ['52.94.236.248', 'AS16509 Amazon Web Services'],
    ['34.102.136.180', 'AS396982 Google Cloud'],
    ['20.42.65.92', 'AS8075 Microsoft Azure'],
    ['159.89.1.1', 'AS14061 DigitalOcean'],
    ['5.161.1.1', 'AS213230 Hetzner Online'],
    ['2603:1030:c06:6::1', 'AS8075 Microsoft Azure'],
    ['2a01:4f8:c17:1::1', 'AS24940 Hetzner Online'],
    ['2600:1f18::1', 'AS14618 Amazon Web Services'],
    ['2001:41d0::1', 'AS16276 OVHcloud'],
  ])('%s is datacenter (%s)', (ip, network) => {
    expect(classify(ip)).toEqual({ ip, ipClass: 'datacenter', network, ivt: 'datacenter' });
  });
});

describe('the unannounced rest of a hosting network\'s IPv6 allocation is its space too', () => {
  it.each([
    // DigitalOcean droplets: only a few routes of 2604:a880::/32 and 2a03:b0c0::/32 are in the data
    ['2604:a880:400:d0::1', 'AS14061 DigitalOcean'],
    ['2604:a880:4:1d0::1', 'AS14061 DigitalOcean'],
    ['2604:a880:1:20::1', 'AS14061 DigitalOcean'],
    ['2a03:b0c0:1:d0::1', 'AS14061 DigitalOcean'],
    ['2400:6180:0:d0::1', 'AS14061 DigitalOcean'],
    // Google Cloud's published 2600:1900::/28, both halves
    ['2600:1900::1', 'AS396982 Google Cloud'],
    ['2600:1908::1', 'AS396982 Google Cloud'],
    ['2600:190f:ffff::1', 'AS396982 Google Cloud'],
    // Amazon's 2620:107:3000::/44 holds the rest of its /36 (nobody else has a row there)
    ['2620:107:3fff::1', 'AS16509 Amazon Web Services'],
  ])('%s is datacenter (%s)', (ip, network) => {
    expect(classify(ip)).toEqual({ ip, ipClass: 'datacenter', network, ivt: 'datacenter' });
  });

  it('stops where another network has a row: OVH Telecom (consumer) inside OVH\'s 2001:41d0::/32, and 2600:1910:: past Google\'s /28', () => {
    expect(classify('2001:41d0:8:1::1')).toMatchObject({ ipClass: 'datacenter', network: 'AS16276 OVHcloud' });
    expect(classify('2001:41d0:fc10::1')).toMatchObject({ ipClass: 'public', ivt: '' });
    expect(classify('2600:1910::1')).toMatchObject({ ipClass: 'public', ivt: '' });
  });
});

describe('residential and other public addresses', () => {
  it.each([
    ['73.162.10.20', 'Comcast AS7922'],
    ['24.4.5.6', 'Comcast AS7922'],
    ['2601:1c0::1', 'Comcast AS7922'],
    ['86.150.1.1', 'BT AS2856'],
    ['2a00:23c5::1', 'BT AS5400'],
    ['2003:e1:bf00::1', 'Deutsche Telekom AS3320'],
    ['2a02:908::1', 'Vodafone Germany AS3209'],
    ['71.105.1.1', 'Verizon Fios AS701'],
    ['2600:4040:1::1', 'Verizon Fios AS701'],
    ['2600:1010::1', 'Verizon Wireless AS6167'],
    ['90.0.0.1', 'Orange AS3215'],
    ['2a01:cb00::1', 'Orange AS5511'],
    ['172.56.1.1', 'T-Mobile US AS21928'],
    ['2607:fb90::1', 'T-Mobile US AS21928'],
  ])('%s (%s) is public and valid', (ip) => {
    expect(classify(ip)).toEqual({ ip, ipClass: 'public', network: '', ivt: '' });
  });
});

describe('cloud networks under other autonomous systems', () => {
  it.each([
    ['2606:7b40:1b10::1', 'AS801 Amazon Web Services'],
    ['34.101.20.1', 'AS139190 Google Cloud (Asia Pacific)'],
  ])('%s is datacenter (%s)', (ip, network) => {
    expect(classify(ip)).toEqual({ ip, ipClass: 'datacenter', network, ivt: 'datacenter' });
  });
});

describe('privacy relays carry real people', () => {
  it('classifies Cloudflare (WARP, Private Relay egress) as relay, valid', () => {
    expect(classify('104.28.1.1')).toEqual({ ip: '104.28.1.1', ipClass: 'relay', network: 'AS13335 Cloudflare', ivt: '' });
  });
});

describe('address forms', () => {
  it('folds IPv4-mapped IPv6 to IPv4 before classifying', () => {
    expect(classify('::ffff:3.5.140.2')).toMatchObject({ ip: '3.5.140.2', ivt: 'datacenter' });
    expect(classify('::ffff:73.162.10.20')).toMatchObject({ ip: '73.162.10.20', ivt: '' });
  });

  it.each(['10.0.0.1', '192.168.1.1', '172.16.5.5', '127.0.0.1', '100.64.0.1', '169.254.1.1', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1'])(
    '%s is private: private_ip by default, valid when private addresses are allowed',
    (ip) => {
      expect(classify(ip)).toMatchObject({ ipClass: 'private', ivt: 'private_ip' });
      expect(createIpClassifier({ ...tables, allowPrivate: true })(ip)).toMatchObject({ ipClass: 'private', ivt: '' });
    },
  );

  it('calls something that is not an address invalid_ip', () => {
    expect(classify('not-an-ip')).toMatchObject({ ipClass: 'unknown', ivt: 'invalid_ip' });
  });
});

describe('cost', () => {
  it('loads the tables at start in well under a second', () => {
    expect(loadMs).toBeLessThan(3000);
    expect(tables.datacenter.ipv4.size).toBeGreaterThan(5000);
    expect(tables.datacenter.ipv6.size).toBeGreaterThan(500);
  });

  it('classifies one address in microseconds', () => {
    const addresses = ['73.162.10.20', '3.5.140.2', '2a01:4f8:c17:1::1', '2003:e1:bf00::1'];
    for (let i = 0; i < 1000; i++) classify(addresses[i % 4]!);
    const rounds = 20_000;
    const started = performance.now();
    for (let i = 0; i < rounds; i++) classify(addresses[i % 4]!);
    const microsecondsEach = ((performance.now() - started) * 1000) / rounds;
    // Typically 2-10 µs; the bound leaves room for a busy shared machine.
    expect(microsecondsEach).toBeLessThan(100);
  });
});

describe('operator CIDR files', () => {
  it('adds DATA_DIR/ivt/*.cidr and IVT_EXTRA_CIDR_FILES ranges as data-center space, labelled by file', () => {
    const dataDir = tempDirectory('ivt-files-');
    mkdirSync(path.join(dataDir, 'ivt'));
    writeFileSync(path.join(dataDir, 'ivt', 'aws.cidr'), '# feed\n81.2.69.0/24\n');
    const extra = path.join(dataDir, 'office-vpn.cidr');
    writeFileSync(extra, '81.2.70.7\n2a02:908:abcd::/48  # lab\n\n');
    const withFiles = createIpClassifier({ ...loadNetworkTables(dataDir, [extra]), allowPrivate: false });
    expect(withFiles('81.2.69.142')).toMatchObject({ ipClass: 'datacenter', network: 'aws.cidr' });
    expect(withFiles('81.2.70.7')).toMatchObject({ ipClass: 'datacenter', network: 'office-vpn.cidr' });
    expect(withFiles('81.2.70.8')).toMatchObject({ ipClass: 'public' });
    expect(withFiles('2a02:908:abcd:12::5')).toMatchObject({ ipClass: 'datacenter', network: 'office-vpn.cidr' });
    expect(withFiles('2a02:908:abce::5')).toMatchObject({ ipClass: 'public' });
  });

  it('refuses to start on a line that is not an address, naming the file and line', () => {
    const dataDir = tempDirectory('ivt-bad-');
    const bad = path.join(dataDir, 'bad.cidr');
    writeFileSync(bad, '81.2.69.0/24\nnot a range\n');
    expect(() => loadNetworkTables(dataDir, [bad])).toThrow(`${bad}:2`);
    expect(() => loadNetworkTables(dataDir, [path.join(dataDir, 'missing.cidr')])).toThrow(/cannot read CIDR file/);
  });

  // The start's load (a worker thread in the built service; here, from the TypeScript sources, the
  // fallback on the calling thread): the same tables, and the same refusal.
  it('the start loads the same tables, and refuses the same bad line, naming the file and line', async () => {
    const dataDir = tempDirectory('ivt-start-');
    const extra = path.join(dataDir, 'office-vpn.cidr');
    writeFileSync(extra, '81.2.70.7\n');
    const atStart = createIpClassifier({ ...(await loadNetworkTablesInWorker({ dataDir, extraCidrFiles: [extra] })), allowPrivate: false });
    expect(atStart('81.2.70.7')).toMatchObject({ ipClass: 'datacenter', network: 'office-vpn.cidr' });
    expect(atStart('3.5.140.2')).toMatchObject({ ipClass: 'datacenter', network: 'AS16509 Amazon Web Services' });
    expect(atStart('81.2.70.8')).toMatchObject({ ipClass: 'public' });
    const bad = path.join(dataDir, 'bad.cidr');
    writeFileSync(bad, '81.2.69.0/24\nnot a range\n');
    await expect(loadNetworkTablesInWorker({ dataDir, extraCidrFiles: [bad] })).rejects.toThrow(`${bad}:2`);
  });

  it('the worker thread sends the tables it built, and null when it cannot build them (the caller then builds them to throw)', async () => {
    type Parts = Record<'datacenter' | 'relay', Record<'ipv4' | 'ipv6', RangeTableParts>> | null;
    const runWorker = (extraCidrFiles: string[]) =>
      firstMessageOfWorkerSource<Parts>(new URL('../../src/ivt/networkTablesWorker.ts', import.meta.url), { dataDir, extraCidrFiles });
    const dataDir = tempDirectory('ivt-worker-');
    const extra = path.join(dataDir, 'office-vpn.cidr');
    writeFileSync(extra, '81.2.70.7\n');
    const parts = await runWorker([extra]);
    expect(parts).not.toBeNull();
    const tables = (family: 'datacenter' | 'relay') => ({ ipv4: RangeTable.fromParts(parts![family].ipv4), ipv6: RangeTable.fromParts(parts![family].ipv6) });
    const fromWorker = createIpClassifier({ datacenter: tables('datacenter'), relay: tables('relay'), allowPrivate: false });
    for (const address of ['81.2.70.7', '3.5.140.2', '2a01:4f8:c17:1::1', '81.2.70.8', '8.8.8.8']) {
      expect(fromWorker(address)).toEqual(createIpClassifier({ ...loadNetworkTables(dataDir, [extra]), allowPrivate: false })(address));
    }
    const bad = path.join(dataDir, 'bad.cidr');
    writeFileSync(bad, 'not a range\n');
    expect(await runWorker([bad])).toBeNull();
  });
});

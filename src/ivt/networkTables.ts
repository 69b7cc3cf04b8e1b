import { createRequire } from 'node:module';
import { builtInWorker } from '../builtInWorker.js';
import { addAsnRanges, asnRangeFiles, type AsnTarget } from './asnRanges.js';
import { readCidrFiles } from './cidrFiles.js';
import type { AddressTables } from './ipClassifier.js';
import { hostingNetworks, networkLabel, relayNetworks } from './knownNetworks.js';
import { loadPrebuiltTables, type PrebuiltTables } from './prebuiltTables.js';
import { RangeTable, RangeTableBuilder, type CollectedRanges, type RangeTableParts } from './rangeTable.js';

export interface NetworkTables {
  datacenter: AddressTables;
  relay: AddressTables;
}

type Builders = Record<keyof NetworkTables, Record<keyof AddressTables, RangeTableBuilder>>;

/**
 * The hosting and relay networks' ranges from @ip-location-db/asn, as collected and not yet merged
 * (the CIDR files are added to them at each start): kept by `npm run build` in
 * dist/network-ranges.bin (here from dist/src/ivt/). ipaddr.js parses the IPv6 rows.
 */
export const asnRanges: PrebuiltTables<Builders> = {
  name: 'the networks\' ASN ranges',
  file: new URL('../../network-ranges.bin', import.meta.url),
  sources: [asnRangeFiles.ipv4, asnRangeFiles.ipv6, createRequire(import.meta.url).resolve('ipaddr.js/package.json')],
  code: [new URL('./', import.meta.url)],
  build: () => {
    const builders: Builders = {
      datacenter: { ipv4: new RangeTableBuilder(1), ipv6: new RangeTableBuilder(2) },
      relay: { ipv4: new RangeTableBuilder(1), ipv6: new RangeTableBuilder(2) },
    };
    const targets = new Map<number, AsnTarget>();
    for (const network of hostingNetworks) targets.set(network.asn, { label: networkLabel(network), ...builders.datacenter, fillsAllocation: true });
    for (const network of relayNetworks) targets.set(network.asn, { label: networkLabel(network), ...builders.relay });
    addAsnRanges(targets);
    return builders;
  },
  stored: ({ datacenter, relay }) => ({
    datacenter: { ipv4: datacenter.ipv4.collected(), ipv6: datacenter.ipv6.collected() },
    relay: { ipv4: relay.ipv4.collected(), ipv6: relay.ipv6.collected() },
  }),
  fromStored: (stored) => {
    const { datacenter, relay } = stored as Record<keyof NetworkTables, Record<keyof AddressTables, CollectedRanges>>;
    return {
      datacenter: { ipv4: RangeTableBuilder.of(datacenter.ipv4), ipv6: RangeTableBuilder.of(datacenter.ipv6) },
      relay: { ipv4: RangeTableBuilder.of(relay.ipv4), ipv6: RangeTableBuilder.of(relay.ipv6) },
    };
  },
};

/**
 * Builds the classifier's tables once per process, at start: the hosting and relay autonomous
 * systems' ranges (asnRanges above), plus every CIDR file (the providers' feeds fetched by
 * `npm run ivt:update` into DATA_DIR/ivt, and the operator's IVT_EXTRA_CIDR_FILES) as data-center
 * space, read at every start. `onBuilt` is told why the ASN ranges were read from the CSV files, when they were.
 */
export function loadNetworkTables(dataDir: string, extraCidrFiles: readonly string[], onBuilt?: (why: string) => void): NetworkTables {
  const { datacenter, relay } = loadPrebuiltTables(asnRanges, onBuilt);
  for (const file of readCidrFiles(dataDir, extraCidrFiles)) {
    for (const range of file.ranges) datacenter[range.family].add(range.start, range.end, file.label);
  }
  return {
    datacenter: { ipv4: datacenter.ipv4.build(), ipv6: datacenter.ipv6.build() },
    relay: { ipv4: relay.ipv4.build(), ipv6: relay.ipv6.build() },
  };
}

/** What the tables are built from: DATA_DIR (its ivt/ feeds) and the operator's IVT_EXTRA_CIDR_FILES. */
export interface NetworkTablesInput {
  dataDir: string;
  extraCidrFiles: readonly string[];
}

type NetworkTableParts = Record<keyof NetworkTables, Record<keyof AddressTables, RangeTableParts>>;

/** What the worker sends: the tables' parts and why the ASN ranges were built from the CSV files if they were; null when it could not build them. */
export type NetworkTablesMessage = (NetworkTableParts & { built: string | undefined }) | null;

/**
 * The tables of loadNetworkTables, built in a worker thread (the prebuilt file's check reads the
 * CSV files; the CIDR files are read and the tables merged), or here when that cannot be
 * (builtInWorker.ts): a bad CIDR file's error then fails the start.
 */
export function loadNetworkTablesInWorker(input: NetworkTablesInput, onBuilt?: (why: string) => void): Promise<NetworkTables> {
  return builtInWorker<NetworkTablesMessage, NetworkTables>(
    new URL('./networkTablesWorker.js', import.meta.url),
    { dataDir: input.dataDir, extraCidrFiles: [...input.extraCidrFiles] },
    (message) => {
      if (message === null) return undefined;
      if (message.built !== undefined) onBuilt?.(message.built);
      return tablesOfParts(message);
    },
    () => loadNetworkTables(input.dataDir, input.extraCidrFiles, onBuilt),
  );
}

/** The tables' parts, and the buffers that can be moved to another thread with them. */
export function networkTableParts(tables: NetworkTables): NetworkTableParts & { buffers: ArrayBuffer[] } {
  const parts: NetworkTableParts = {
    datacenter: { ipv4: tables.datacenter.ipv4.parts(), ipv6: tables.datacenter.ipv6.parts() },
    relay: { ipv4: tables.relay.ipv4.parts(), ipv6: tables.relay.ipv6.parts() },
  };
  const buffers = [parts.datacenter.ipv4, parts.datacenter.ipv6, parts.relay.ipv4, parts.relay.ipv6].flatMap((table) => [
    table.starts.buffer as ArrayBuffer,
    table.ends.buffer as ArrayBuffer,
    table.labelIndexes.buffer as ArrayBuffer,
  ]);
  return { ...parts, buffers };
}

function tablesOfParts(parts: NetworkTableParts): NetworkTables {
  return {
    datacenter: { ipv4: RangeTable.fromParts(parts.datacenter.ipv4), ipv6: RangeTable.fromParts(parts.datacenter.ipv6) },
    relay: { ipv4: RangeTable.fromParts(parts.relay.ipv4), ipv6: RangeTable.fromParts(parts.relay.ipv6) },
  };
}

import { builtInWorker } from '../builtInWorker.js';
import { addAsnRanges, type AsnTarget } from './asnRanges.js';
import { readCidrFiles } from './cidrFiles.js';
import type { AddressTables } from './ipClassifier.js';
import { hostingNetworks, networkLabel, relayNetworks } from './knownNetworks.js';
import { RangeTable, RangeTableBuilder, type RangeTableParts } from './rangeTable.js';

export interface NetworkTables {
  datacenter: AddressTables;
  relay: AddressTables;
}

/**
 * Builds the classifier's tables once per process, at start: the hosting and relay autonomous
 * systems' ranges from @ip-location-db/asn, plus every CIDR file (the providers' feeds fetched by
 * `npm run ivt:update` into DATA_DIR/ivt, and the operator's IVT_EXTRA_CIDR_FILES) as data-center space.
 */
export function loadNetworkTables(dataDir: string, extraCidrFiles: readonly string[]): NetworkTables {
  const datacenter = { ipv4: new RangeTableBuilder(1), ipv6: new RangeTableBuilder(2) };
  const relay = { ipv4: new RangeTableBuilder(1), ipv6: new RangeTableBuilder(2) };
  const targets = new Map<number, AsnTarget>();
  for (const network of hostingNetworks) targets.set(network.asn, { label: networkLabel(network), ...datacenter, fillsAllocation: true });
  for (const network of relayNetworks) targets.set(network.asn, { label: networkLabel(network), ...relay });
  addAsnRanges(targets);

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

/**
 * The tables of loadNetworkTables, built in a worker thread (0.2-0.45 s of CSV parsing at start on
 * this project's VM), or here when that cannot be (builtInWorker.ts): a bad CIDR file's error then
 * fails the start.
 */
export function loadNetworkTablesInWorker(input: NetworkTablesInput): Promise<NetworkTables> {
  return builtInWorker<NetworkTableParts | null, NetworkTables>(
    new URL('./networkTablesWorker.js', import.meta.url),
    { dataDir: input.dataDir, extraCidrFiles: [...input.extraCidrFiles] },
    (parts) => (parts === null ? undefined : tablesOfParts(parts)),
    () => loadNetworkTables(input.dataDir, input.extraCidrFiles),
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

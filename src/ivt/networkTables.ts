import { addAsnRanges, type AsnTarget } from './asnRanges.js';
import { readCidrFiles } from './cidrFiles.js';
import type { AddressTables } from './ipClassifier.js';
import { hostingNetworks, networkLabel, relayNetworks } from './knownNetworks.js';
import { RangeTableBuilder } from './rangeTable.js';

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

import type { Config } from '../config.js';
import { createIpClassifier, type IpClassifier } from './ipClassifier.js';
import { loadNetworkTablesInWorker } from './networkTables.js';
import { createUserAgentClassifier, type UserAgentInvalidReason } from './userAgentClassifier.js';

/** What general invalid traffic is judged on: the client's address and its user agent. */
export interface TrafficClassifier {
  ip: IpClassifier;
  userAgent(userAgent: string | undefined): UserAgentInvalidReason | '';
}

/**
 * Built in a worker thread (see loadNetworkTablesInWorker); rejects when a CIDR file cannot be read.
 * `onBuilt` is told why the ASN ranges were built from the CSV files, when they were.
 */
export async function loadTrafficClassifier(
  config: Pick<Config, 'DATA_DIR' | 'IVT_EXTRA_CIDR_FILES' | 'IVT_ALLOW_PRIVATE_IPS'>,
  onBuilt?: (why: string) => void,
): Promise<TrafficClassifier> {
  const tables = await loadNetworkTablesInWorker({ dataDir: config.DATA_DIR, extraCidrFiles: extraCidrFiles(config.IVT_EXTRA_CIDR_FILES) }, onBuilt);
  return {
    ip: createIpClassifier({ ...tables, allowPrivate: config.IVT_ALLOW_PRIVATE_IPS }),
    userAgent: createUserAgentClassifier(),
  };
}

/** The operator's IVT_EXTRA_CIDR_FILES, a comma-separated list of paths. */
export function extraCidrFiles(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((file) => file.trim())
    .filter((file) => file !== '');
}

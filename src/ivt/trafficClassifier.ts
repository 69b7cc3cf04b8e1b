import type { Config } from '../config.js';
import { createIpClassifier, type IpClassifier } from './ipClassifier.js';
import { loadNetworkTables } from './networkTables.js';
import { createUserAgentClassifier, type UserAgentInvalidReason } from './userAgentClassifier.js';

/** What general invalid traffic is judged on: the client's address and its user agent. */
export interface TrafficClassifier {
  ip: IpClassifier;
  userAgent(userAgent: string | undefined): UserAgentInvalidReason | '';
}

export function loadTrafficClassifier(
  config: Pick<Config, 'DATA_DIR' | 'IVT_EXTRA_CIDR_FILES' | 'IVT_ALLOW_PRIVATE_IPS'>,
): TrafficClassifier {
  const extraFiles = (config.IVT_EXTRA_CIDR_FILES ?? '')
    .split(',')
    .map((file) => file.trim())
    .filter((file) => file !== '');
  const tables = loadNetworkTables(config.DATA_DIR, extraFiles);
  return {
    ip: createIpClassifier({ ...tables, allowPrivate: config.IVT_ALLOW_PRIVATE_IPS }),
    userAgent: createUserAgentClassifier(),
  };
}

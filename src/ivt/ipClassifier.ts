import ipaddr from 'ipaddr.js';
import { ipv4Key, ipv6PrefixWords } from './addressKeys.js';
import { parseAddressText } from './addressText.js';
import type { IvtReason } from './ivtReasons.js';
import type { RangeTable } from './rangeTable.js';
import { specialRangeTables } from './specialRanges.js';

/**
 * public: no known network (ISPs, mobile carriers, businesses); datacenter: cloud and hosting space;
 * relay: a privacy relay carrying real people (valid); private: loopback, private, link-local,
 * carrier-grade NAT, documentation and other special-purpose ranges; unknown: not an IP address.
 */
type IpClass = 'public' | 'datacenter' | 'relay' | 'private' | 'unknown';

type IpInvalidReason = Extract<IvtReason, 'datacenter' | 'private_ip' | 'invalid_ip'>;

export interface IpVerdict {
  /** The address as stored: normalized, IPv4-mapped IPv6 (`::ffff:1.2.3.4`) folded to IPv4. */
  ip: string;
  ipClass: IpClass;
  /** The network that matched (`AS16509 Amazon Web Services`, or a CIDR file's name); '' for public and private. */
  network: string;
  /** '' when the address itself is no reason to call the event invalid. */
  ivt: IpInvalidReason | '';
}

export interface AddressTables {
  ipv4: RangeTable;
  ipv6: RangeTable;
}

export interface IpClassifierOptions {
  datacenter: AddressTables;
  relay: AddressTables;
  /** IVT_ALLOW_PRIVATE_IPS: a development install on localhost counts its own traffic. */
  allowPrivate: boolean;
}

export type IpClassifier = (address: string) => IpVerdict;

/**
 * Classifies one address in a microsecond or two: a parse and at most three binary searches. The
 * common forms take a hand-written parser (addressText.ts); anything else goes through ipaddr.js.
 */
export function createIpClassifier({ datacenter, relay, allowPrivate }: IpClassifierOptions): IpClassifier {
  const special = specialRangeTables();

  function verdict(ip: string, family: 'ipv4' | 'ipv6', high: number, low: number): IpVerdict {
    const datacenterNetwork = datacenter[family].find(high, low);
    if (datacenterNetwork !== undefined) return { ip, ipClass: 'datacenter', network: datacenterNetwork, ivt: 'datacenter' };
    const relayNetwork = relay[family].find(high, low);
    if (relayNetwork !== undefined) return { ip, ipClass: 'relay', network: relayNetwork, ivt: '' };
    return { ip, ipClass: 'public', network: '', ivt: '' };
  }

  return (address) => {
    const fast = parseAddressText(address);
    if (fast) {
      const high = fast.family === 'ipv4' ? fast.key : fast.high;
      const low = fast.family === 'ipv4' ? 0 : fast.low;
      if (special[fast.family].find(high, low) !== undefined) return privateVerdict(fast.text, allowPrivate);
      return verdict(fast.text, fast.family, high, low);
    }
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address);
    } catch {
      return { ip: address.slice(0, 64), ipClass: 'unknown', network: '', ivt: 'invalid_ip' };
    }
    const ip = parsed.toString();
    if (parsed.range() !== 'unicast') return privateVerdict(ip, allowPrivate);
    if (parsed.kind() === 'ipv4') return verdict(ip, 'ipv4', ipv4Key(parsed as ipaddr.IPv4), 0);
    const [high, low] = ipv6PrefixWords(parsed as ipaddr.IPv6);
    return verdict(ip, 'ipv6', high, low);
  };
}

function privateVerdict(ip: string, allowPrivate: boolean): IpVerdict {
  return { ip, ipClass: 'private', network: '', ivt: allowPrivate ? '' : 'private_ip' };
}

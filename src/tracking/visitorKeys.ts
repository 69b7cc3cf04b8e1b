import { parseAddressText } from '../ivt/addressText.js';
import type { Visitor } from './visitor.js';

/**
 * The visitor's address, an IPv6 one by its /64, its network, an IPv6 address by its /56 (impression
 * velocity keys networks the same way), and its block, an IPv4 /24 or an IPv6 /48.
 */
export function addressKeys({ ip }: Visitor): { address: string; network: string; block: string } {
  const parsed = parseAddressText(ip.ip);
  if (parsed?.family !== 'ipv6') return { address: ip.ip, network: ip.ip, block: `${ip.ip.slice(0, ip.ip.lastIndexOf('.'))}/24` };
  return { address: `${parsed.high}:${parsed.low}/64`, network: `${parsed.high}:${parsed.low >>> 8}/56`, block: `${parsed.high}:${parsed.low >>> 16}/48` };
}

import { isbot } from 'isbot';
import ipaddr from 'ipaddr.js';

/** Browser families by their user-agent tokens; order matters (Edge and Opera also say Chrome, Chrome also says Safari). */
const browserFamilies: ReadonlyArray<[family: string, token: RegExp]> = [
  ['Edge', /\bEdg(?:e|A|iOS)?\//],
  ['Opera', /\bOPR\/|\bOpera\b/],
  ['Samsung Internet', /\bSamsungBrowser\//],
  ['Firefox', /\bFirefox\/|\bFxiOS\//],
  ['Chrome', /\bChrom(?:e|ium)\/|\bCriOS\//],
  ['Safari', /\bVersion\/[\d.]+.*\bSafari\//],
];

/**
 * Enough of a user agent to tell a browser from a script: a browser family, `bot` for crawlers and
 * HTTP libraries (the isbot list: curl, node, undici, python-requests, headless browsers...), `none`
 * when there was no user agent, `other` otherwise. Versions are left out: they say nothing here.
 */
export function userAgentFamily(userAgent: string): string {
  if (userAgent.trim() === '') return 'none';
  if (isbot(userAgent)) return 'bot';
  return browserFamilies.find(([, token]) => token.test(userAgent))?.[0] ?? 'other';
}

export type ImpressionOrigin = 'browser' | 'server' | 'unknown';

/**
 * Where a pixel request came from, for the integration check. `server`: a data-center address, server
 * code (a server-side marker such as CF-Worker), or a client that is not a browser (the spec's
 * server-side requests). `browser`: a browser on a public
 * or relay address, or on a private one when IVT_ALLOW_PRIVATE_IPS counts those. Anything else
 * (an unrecognised client, a private address that is not counted) is `unknown`.
 */
export function impressionOrigin(ipClass: string, ivt: string, family: string): ImpressionOrigin {
  if (ipClass === 'datacenter' || ivt === 'server_side' || family === 'bot' || family === 'none') return 'server';
  if (family === 'other') return 'unknown';
  if (ipClass === 'public' || ipClass === 'relay') return 'browser';
  if (ipClass === 'private' && ivt !== 'private_ip') return 'browser';
  return 'unknown';
}

/**
 * The address with its host part zeroed, so the check shows the network without identifying a
 * person: IPv4 keeps its /24 (203.0.113.0), IPv6 its /48 (2001:db8:1::). Not an address: ''.
 */
export function maskIp(ip: string): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip);
  } catch {
    return '';
  }
  if (address.kind() === 'ipv4') {
    const [a, b, c] = (address as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0`;
  }
  const parts = (address as ipaddr.IPv6).parts.map((part, index) => (index < 3 ? part : 0));
  return new ipaddr.IPv6(parts).toString();
}

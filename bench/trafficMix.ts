import { seededRandom } from './seededRandom.js';

/**
 * Who fires pixels and clicks: people on consumer ISPs (valid), servers in clouds and hosting
 * networks (invalid: datacenter), and crawlers with bot user agents on consumer addresses
 * (invalid: bot). Addresses vary per request inside each network, IPv4 and IPv6, and reach the
 * service through X-Forwarded-For (the service runs with TRUST_PROXY=127.0.0.1).
 */
export type TrafficKind = 'residential' | 'datacenter' | 'bot';

export const trafficShares: Readonly<Record<TrafficKind, number>> = { residential: 0.8, datacenter: 0.12, bot: 0.08 };

/**
 * Prefixes whose last parts vary. Each was checked against the service's classifier: every address an
 * IPv4 prefix can produce, and every /64 of the IPv6 datacenter /48s, classifies as its kind; the
 * residential IPv6 /32s are checked by the track bench itself (every stored event's reason must be
 * its visitor's kind's).
 */
const residentialPrefixes = [
  '73.162', // Comcast (AS7922)
  '71.187', // Verizon (AS701)
  '79.214', // Deutsche Telekom (AS3320)
  '86.153', // BT (AS2856)
  '90.12', // Orange France (AS3215)
  // A /32 each, not a /48: an ISP gives each home a /56 to /64, and the service's click velocity
  // per /56 (6 in 10 s) would take a /48's 256 homes clicking at the bench's rate for one network.
  '2601:647', // Comcast IPv6
  '2003:e6', // Deutsche Telekom IPv6
];
const datacenterPrefixes = [
  '3.85', // Amazon Web Services (AS16509)
  '34.105', // Google Cloud (AS396982)
  '20.55', // Microsoft Azure (AS8075)
  '167.99', // DigitalOcean (AS14061)
  '95.217', // Hetzner (AS24940)
  '51.38', // OVHcloud (AS16276)
  '2a01:4f8:c17', // Hetzner IPv6
  '2600:1f18:4a3', // Amazon Web Services IPv6
];

const browserAgents = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
];
const botAgents = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'python-requests/2.32.3',
  'curl/8.8.0',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
];

/**
 * The Fetch Metadata a browser sends with the render kit's pixel (`new Image()`) and with a person
 * following click_url (as test/browser/renderKit.test.ts asserts against a real Chromium): the
 * bench's service links to 127.0.0.1, an origin browsers send it to, so a Chrome or Firefox user
 * agent without it would be `no_fetch_metadata`, not the people this load stands for.
 */
export const BROWSER_IMAGE_LOAD = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' } as const;
export const BROWSER_NAVIGATION = { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' } as const;

/**
 * What Chrome 126 sends in `Sec-CH-UA` with every request to the bench's origin (loopback): the
 * service compares it with the user agent (client_hints_mismatch), so the pixel pays for that check
 * as it does for most people's pixels.
 */
const CHROME_126_HINTS = '"Not/A)Brand";v="8", "Chromium";v="126", "Google Chrome";v="126"';

/** The user agent and, from a Chrome, its client hints. */
export function browserHeaders(userAgent: string): Record<string, string> {
  return userAgent.includes('Chrome/126.') ? { 'user-agent': userAgent, 'sec-ch-ua': CHROME_126_HINTS } : { 'user-agent': userAgent };
}

export interface Visitor {
  kind: TrafficKind;
  ip: string;
  userAgent: string;
}

/** The i-th visitor of a reproducible stream with the shares above. */
export function visitorStream(seed = 5): (index: number) => Visitor {
  return (index) => {
    const random = seededRandom(seed * 1_000_003 + index);
    const roll = random();
    const kind: TrafficKind =
      roll < trafficShares.residential ? 'residential' : roll < trafficShares.residential + trafficShares.datacenter ? 'datacenter' : 'bot';
    const prefixes = kind === 'datacenter' ? datacenterPrefixes : residentialPrefixes;
    const agents = kind === 'bot' ? botAgents : browserAgents;
    return { kind, ip: addressIn(prefixes[Math.floor(random() * prefixes.length)]!, random), userAgent: agents[Math.floor(random() * agents.length)]! };
  };
}

function addressIn(prefix: string, random: () => number): string {
  if (prefix.includes(':')) {
    const word = () => Math.floor(random() * 0x10000).toString(16);
    const words = Array.from({ length: 8 - prefix.split(':').length }, word);
    return `${prefix}:${words.join(':')}`;
  }
  const octet = () => 1 + Math.floor(random() * 254);
  return `${prefix}.${octet()}.${octet()}`;
}

/**
 * Consumer-ISP prefixes of the serve-controls traffic, weighted by share, with the country the
 * service's offline database (src/geo/countryOfAddress.ts) gives every address they produce (each
 * checked over its whole range: 4,096 sampled IPv4 addresses, 1,000 IPv6 /64s).
 */
const servingPrefixes = [
  { prefix: '73.162', country: 'US', share: 0.2 }, // Comcast
  { prefix: '71.187', country: 'US', share: 0.1 }, // Verizon
  { prefix: '2601:647:4d00', country: 'US', share: 0.1 }, // Comcast IPv6
  { prefix: '79.214', country: 'DE', share: 0.1 }, // Deutsche Telekom
  { prefix: '2003:e6:1f0a', country: 'DE', share: 0.05 }, // Deutsche Telekom IPv6
  { prefix: '86.153', country: 'GB', share: 0.15 }, // BT
  { prefix: '90.12', country: 'FR', share: 0.1 }, // Orange France
  { prefix: '99.229', country: 'CA', share: 0.1 },
  { prefix: '60.240', country: 'AU', share: 0.05 },
  { prefix: '189.6', country: 'BR', share: 0.05 },
] as const;

/** Countries of the serve-controls traffic, with their shares. */
export const servingCountries: Readonly<Record<string, number>> = servingPrefixes.reduce<Record<string, number>>((shares, { country, share }) => {
  shares[country] = Math.round(((shares[country] ?? 0) + share) * 100) / 100;
  return shares;
}, {});

export interface ServingUser {
  /** The publisher's pseudonymous user id, as a serve request's user.id carries it. */
  id: string;
  ip: string;
  /** The country the service's database gives `ip`. */
  country: string;
}

/** A reproducible pool of end users of a chat publisher: an id each and a consumer address. */
export function servingUsers(count: number, seed = 17): ServingUser[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => {
    let roll = random();
    const entry = servingPrefixes.find(({ share }) => (roll -= share) < 0) ?? servingPrefixes[0];
    return { id: `chat-user-${seed}-${index}`, ip: addressIn(entry.prefix, random), country: entry.country };
  });
}

import { z } from 'zod';
import { cidrBounds } from './addressKeys.js';

/**
 * Cloud providers' published address ranges, at URLs they keep stable. Providers without one
 * (Azure renames its weekly service-tags file; Hetzner, OVH and most hosts publish none) are covered
 * by their autonomous systems in knownNetworks.ts.
 */
export interface RangeFeed {
  /** Also the file name: DATA_DIR/ivt/<name>.cidr */
  name: string;
  url: string;
  /** The feed's CIDRs; throws when the document is not what the provider publishes. */
  parse(text: string): string[];
}

const awsRanges = z.object({
  prefixes: z.array(z.object({ ip_prefix: z.string() })),
  ipv6_prefixes: z.array(z.object({ ipv6_prefix: z.string() })),
});

const googleCloudRanges = z.object({
  prefixes: z.array(z.object({ ipv4Prefix: z.string().optional(), ipv6Prefix: z.string().optional() })),
});

const oracleCloudRanges = z.object({
  regions: z.array(z.object({ cidrs: z.array(z.object({ cidr: z.string() })) })),
});

export function parseAwsRanges(text: string): string[] {
  const feed = awsRanges.parse(JSON.parse(text));
  return [...feed.prefixes.map((entry) => entry.ip_prefix), ...feed.ipv6_prefixes.map((entry) => entry.ipv6_prefix)];
}

export function parseGoogleCloudRanges(text: string): string[] {
  return googleCloudRanges
    .parse(JSON.parse(text))
    .prefixes.flatMap((entry) => [entry.ipv4Prefix, entry.ipv6Prefix])
    .filter((cidr): cidr is string => cidr !== undefined);
}

export function parseOracleCloudRanges(text: string): string[] {
  return oracleCloudRanges.parse(JSON.parse(text)).regions.flatMap((region) => region.cidrs.map((entry) => entry.cidr));
}

/** RFC 8805 geofeeds (`prefix,country,region,city,postal`), as DigitalOcean and Linode publish them. */
export function parseGeofeed(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(',')[0]!.trim());
}

export const rangeFeeds: readonly RangeFeed[] = [
  { name: 'aws', url: 'https://ip-ranges.amazonaws.com/ip-ranges.json', parse: parseAwsRanges },
  { name: 'google-cloud', url: 'https://www.gstatic.com/ipranges/cloud.json', parse: parseGoogleCloudRanges },
  { name: 'oracle-cloud', url: 'https://docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json', parse: parseOracleCloudRanges },
  { name: 'digitalocean', url: 'https://digitalocean.com/geo/google.csv', parse: parseGeofeed },
  { name: 'linode', url: 'https://geoip.linode.com/', parse: parseGeofeed },
];

/** The feed's CIDRs, deduplicated; throws on an empty feed or on any entry that is not a CIDR. */
export function validatedCidrs(feed: RangeFeed, text: string): string[] {
  const cidrs = [...new Set(feed.parse(text))];
  if (cidrs.length === 0) throw new Error('the feed lists no ranges');
  for (const cidr of cidrs) {
    try {
      cidrBounds(cidr);
    } catch {
      throw new Error(`the feed lists ${JSON.stringify(cidr.slice(0, 80))}, which is not a CIDR`);
    }
  }
  return cidrs;
}

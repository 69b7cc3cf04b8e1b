import { describe, expect, it } from 'vitest';
import { parseCidrList, formatCidrList } from '../../src/ivt/cidrFiles.js';
import { parseAwsRanges, parseGeofeed, parseGoogleCloudRanges, parseOracleCloudRanges, rangeFeeds, validatedCidrs } from '../../src/ivt/rangeFeeds.js';

// Small samples in each provider's published shape; `npm run ivt:update` downloads the real ones.
describe('providers range feed parsers', () => {
  it('reads AWS ip-ranges.json (IPv4 and IPv6 prefixes)', () => {
    const text = JSON.stringify({
      syncToken: '1',
      prefixes: [{ ip_prefix: '3.5.140.0/22', region: 'ap-northeast-2', service: 'AMAZON' }],
      ipv6_prefixes: [{ ipv6_prefix: '2600:1f18::/33', region: 'us-east-1', service: 'AMAZON' }],
    });
    expect(parseAwsRanges(text)).toEqual(['3.5.140.0/22', '2600:1f18::/33']);
  });

  it('reads Google Cloud cloud.json', () => {
    const text = JSON.stringify({
      syncToken: '1',
      prefixes: [{ ipv4Prefix: '34.1.208.0/20', service: 'Google Cloud', scope: 'africa-south1' }, { ipv6Prefix: '2600:1900:8000::/44', service: 'Google Cloud' }],
    });
    expect(parseGoogleCloudRanges(text)).toEqual(['34.1.208.0/20', '2600:1900:8000::/44']);
  });

  it('reads Oracle Cloud public_ip_ranges.json', () => {
    const text = JSON.stringify({
      last_updated_timestamp: '2025-01-01',
      regions: [{ region: 'us-phoenix-1', cidrs: [{ cidr: '129.146.0.0/21', tags: ['OCI'] }, { cidr: '2603:c020::/32', tags: ['OCI'] }] }],
    });
    expect(parseOracleCloudRanges(text)).toEqual(['129.146.0.0/21', '2603:c020::/32']);
  });

  it('reads RFC 8805 geofeeds (DigitalOcean, Linode), skipping comments and blank lines', () => {
    const text = '# Linode geofeed\n\n139.162.0.0/21,DE,DE-HE,Frankfurt,\n2a01:7e01::/32,DE,DE-HE,Frankfurt,\n';
    expect(parseGeofeed(text)).toEqual(['139.162.0.0/21', '2a01:7e01::/32']);
  });

  it('throws on a document that is not the provider format', () => {
    expect(() => parseAwsRanges('{"prefixes": 3}')).toThrow();
    expect(() => parseAwsRanges('<html>maintenance</html>')).toThrow();
  });

  it('refuses an empty feed or one with an entry that is not a CIDR, and deduplicates', () => {
    const aws = rangeFeeds.find((feed) => feed.name === 'aws')!;
    expect(() => validatedCidrs(aws, JSON.stringify({ prefixes: [], ipv6_prefixes: [] }))).toThrow(/no ranges/);
    expect(() => validatedCidrs(aws, JSON.stringify({ prefixes: [{ ip_prefix: 'nope' }], ipv6_prefixes: [] }))).toThrow(/not a CIDR/);
    expect(validatedCidrs(aws, JSON.stringify({ prefixes: [{ ip_prefix: '3.5.140.0/22' }, { ip_prefix: '3.5.140.0/22' }], ipv6_prefixes: [] }))).toEqual([
      '3.5.140.0/22',
    ]);
  });

  it('writes .cidr files that the classifier reads back', () => {
    const text = formatCidrList('https://example.test/feed', ['3.5.140.0/22', '2600:1f18::/33'], new Date('2025-01-02T00:00:00Z'));
    expect(text.startsWith('# https://example.test/feed\n')).toBe(true);
    expect(parseCidrList(text, 'aws.cidr').map((range) => range.family)).toEqual(['ipv4', 'ipv6']);
  });
});

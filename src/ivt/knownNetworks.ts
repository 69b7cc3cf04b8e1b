/**
 * Autonomous systems whose address space says something about who is calling. Each number was checked
 * against the organisation name that @ip-location-db/asn gives it; the label is what events store in
 * ip_network (`AS16509 Amazon Web Services`).
 */
export interface KnownNetwork {
  asn: number;
  organisation: string;
}

/**
 * Cloud and hosting providers. A browser showing an ad to a person does not sit in a data center, so
 * an event from here is general invalid traffic (a publisher's backend, a crawler, a script).
 * Providers' consumer ISP arms (e.g. OVH Telecom AS35540, Google Fiber AS16591) are not listed.
 */
export const hostingNetworks: readonly KnownNetwork[] = [
  // Amazon Web Services
  { asn: 16509, organisation: 'Amazon Web Services' },
  { asn: 14618, organisation: 'Amazon Web Services' },
  { asn: 8987, organisation: 'Amazon Web Services (Ireland)' },
  { asn: 9059, organisation: 'Amazon Web Services (Ireland)' },
  { asn: 7224, organisation: 'Amazon Web Services' },
  { asn: 38895, organisation: 'Amazon Web Services' },
  { asn: 135630, organisation: 'Amazon Web Services (China)' },
  { asn: 801, organisation: 'Amazon Web Services' },
  { asn: 21664, organisation: 'Amazon Web Services' },
  { asn: 401395, organisation: 'Amazon Web Services' },
  { asn: 214101, organisation: 'AWS European Sovereign Cloud' },
  // AWS's China regions, operated by Sinnet (Beijing) and NWCD (Ningxia); AWS's feed lists their ranges
  { asn: 55960, organisation: 'AWS China (Sinnet)' },
  { asn: 135629, organisation: 'AWS China (NWCD)' },
  // Twitch's servers, in AWS's feed
  { asn: 46489, organisation: 'Twitch (Amazon)' },
  // Google Cloud and Google's own servers (crawlers, fetchers); Google Fiber is a separate AS
  { asn: 396982, organisation: 'Google Cloud' },
  { asn: 15169, organisation: 'Google' },
  { asn: 19527, organisation: 'Google' },
  { asn: 36040, organisation: 'Google' },
  { asn: 36384, organisation: 'Google' },
  { asn: 36492, organisation: 'Google' },
  { asn: 43515, organisation: 'Google (Ireland)' },
  { asn: 139070, organisation: 'Google (Asia Pacific)' },
  { asn: 139190, organisation: 'Google Cloud (Asia Pacific)' },
  { asn: 214609, organisation: 'Google Cloud EMEA' },
  { asn: 214611, organisation: 'Google Cloud EMEA' },
  { asn: 394089, organisation: 'Google' },
  { asn: 395973, organisation: 'Google' },
  // Microsoft Azure and Microsoft's service networks (not AS3598, Microsoft's corporate network)
  { asn: 8075, organisation: 'Microsoft Azure' },
  { asn: 8068, organisation: 'Microsoft' },
  { asn: 8069, organisation: 'Microsoft' },
  { asn: 8070, organisation: 'Microsoft' },
  { asn: 8071, organisation: 'Microsoft' },
  // Azure in China
  { asn: 59067, organisation: 'Microsoft Azure (China)' },
  // Oracle Cloud Infrastructure
  { asn: 31898, organisation: 'Oracle Cloud' },
  { asn: 54253, organisation: 'Oracle Cloud' },
  { asn: 14544, organisation: 'Oracle Cloud' },
  // DigitalOcean
  { asn: 14061, organisation: 'DigitalOcean' },
  { asn: 393406, organisation: 'DigitalOcean' },
  { asn: 46652, organisation: 'DigitalOcean' },
  // Linode / Akamai Connected Cloud (not Akamai's CDN and relay networks)
  { asn: 63949, organisation: 'Akamai Connected Cloud (Linode)' },
  { asn: 48337, organisation: 'Linode' },
  // Hetzner
  { asn: 24940, organisation: 'Hetzner Online' },
  { asn: 213230, organisation: 'Hetzner Online' },
  { asn: 212317, organisation: 'Hetzner Online' },
  { asn: 215859, organisation: 'Hetzner Online' },
  // OVHcloud
  { asn: 16276, organisation: 'OVHcloud' },
  // Vultr (The Constant Company)
  { asn: 20473, organisation: 'Vultr' },
  // Alibaba Cloud
  { asn: 45102, organisation: 'Alibaba Cloud' },
  { asn: 37963, organisation: 'Alibaba Cloud' },
  { asn: 134963, organisation: 'Alibaba Cloud (Singapore)' },
  // Tencent Cloud
  { asn: 132203, organisation: 'Tencent Cloud' },
  { asn: 45090, organisation: 'Tencent Cloud' },
  { asn: 133478, organisation: 'Tencent Cloud' },
  { asn: 137876, organisation: 'Tencent Cloud' },
  // Scaleway
  { asn: 12876, organisation: 'Scaleway' },
  // Contabo
  { asn: 51167, organisation: 'Contabo' },
  { asn: 40021, organisation: 'Contabo' },
  { asn: 141995, organisation: 'Contabo' },
  // Leaseweb
  { asn: 60781, organisation: 'Leaseweb' },
  { asn: 28753, organisation: 'Leaseweb' },
  { asn: 16265, organisation: 'Leaseweb' },
  { asn: 395954, organisation: 'Leaseweb' },
  { asn: 30633, organisation: 'Leaseweb' },
  { asn: 7203, organisation: 'Leaseweb' },
  { asn: 396190, organisation: 'Leaseweb' },
  { asn: 396362, organisation: 'Leaseweb' },
  { asn: 59253, organisation: 'Leaseweb' },
  { asn: 205544, organisation: 'Leaseweb' },
  { asn: 32613, organisation: 'Leaseweb' },
  { asn: 134351, organisation: 'Leaseweb' },
  { asn: 394380, organisation: 'Leaseweb' },
  { asn: 19148, organisation: 'Leaseweb' },
  { asn: 133752, organisation: 'Leaseweb' },
  { asn: 393886, organisation: 'Leaseweb' },
  { asn: 27411, organisation: 'Leaseweb' },
  // Other large clouds and hosts
  { asn: 36351, organisation: 'IBM Cloud' },
  { asn: 55990, organisation: 'Huawei Cloud' },
  { asn: 136907, organisation: 'Huawei Cloud' },
  { asn: 137718, organisation: 'Volcano Engine (ByteDance)' },
  { asn: 396986, organisation: 'ByteDance' },
  { asn: 200350, organisation: 'Yandex Cloud' },
  { asn: 49505, organisation: 'Selectel' },
  { asn: 47583, organisation: 'Hostinger' },
  { asn: 8560, organisation: 'IONOS' },
  { asn: 197540, organisation: 'netcup' },
  { asn: 202053, organisation: 'UpCloud' },
  { asn: 36007, organisation: 'Kamatera' },
  { asn: 199524, organisation: 'G-Core Labs' },
  { asn: 202422, organisation: 'G-Core Labs' },
  { asn: 7979, organisation: 'Servers.com' },
  { asn: 19994, organisation: 'Rackspace' },
  { asn: 33070, organisation: 'Rackspace' },
  { asn: 27357, organisation: 'Rackspace' },
  { asn: 21859, organisation: 'Zenlayer' },
  { asn: 9009, organisation: 'M247' },
  { asn: 212238, organisation: 'Datacamp (CDN77)' },
  { asn: 60068, organisation: 'Datacamp (CDN77)' },
];

/**
 * Networks that carry real people through privacy relays: Cloudflare (WARP, and an iCloud Private
 * Relay egress), Akamai's Private Relay egress AS and Fastly (a Private Relay egress). Their events
 * are valid, with ip_class `relay` so that reports can tell them apart; they are never treated as
 * data-center traffic unless an operator lists a range explicitly.
 */
export const relayNetworks: readonly KnownNetwork[] = [
  { asn: 13335, organisation: 'Cloudflare' },
  { asn: 209242, organisation: 'Cloudflare' },
  { asn: 36183, organisation: 'Akamai (iCloud Private Relay)' },
  { asn: 54113, organisation: 'Fastly' },
];

export function networkLabel(network: KnownNetwork): string {
  return `AS${network.asn} ${network.organisation}`;
}

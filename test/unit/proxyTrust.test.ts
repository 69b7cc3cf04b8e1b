import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedProxyTrust } from '../../src/http/proxyTrust.js';

/** Trust lists as operators write them: single addresses, CIDRs, netmasks, named ranges, IPv4-mapped subnets, zones. */
const LISTS: readonly string[][] = [
  ['127.0.0.1'],
  ['loopback'],
  ['loopback', 'linklocal', 'uniquelocal'],
  ['10.0.0.0/8', '::1'],
  ['192.168.0.0/255.255.0.0', '2001:db8::/32'],
  ['::ffff:10.0.0.0/104'],
  ['::ffff:10.1.2.3'],
  ['fe80::1%eth0'],
  ['0.0.0.0/1', '::/1'],
];

/** Socket addresses: a proxy's, a client's, both families, IPv4-mapped, zones, and text that is no address. */
const PEERS: readonly string[] = [
  '127.0.0.1', '127.9.9.9', '::ffff:127.0.0.1', '::1', '10.1.2.3', '::ffff:10.1.2.3', '::ffff:a01:203', '192.168.5.5',
  '172.16.0.1', '169.254.1.1', '8.8.8.8', '2001:db8::1', '2001:db9::1', 'fe80::1', 'fe80::1%eth0', 'fe80::1%eth1',
  'fc00::5', '010.1.2.3', 'not an address', '',
];

/** One forwarded hop (the client), and two (a second proxy, possibly trusted, then the client). */
const FORWARDED: readonly string[] = ['203.0.113.7', '203.0.113.7, 10.9.9.9', '2001:db8::7, ::ffff:192.168.1.1', '198.51.100.2, 127.0.0.2'];

const apps: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});

function echoIp(trustProxy: string[] | ReturnType<typeof cachedProxyTrust>): FastifyInstance {
  const app = Fastify({ trustProxy });
  app.get('/', async (request) => ({ ip: request.ip, host: request.host }));
  apps.push(app);
  return app;
}

async function ipsSeenBy(app: FastifyInstance, rounds: number): Promise<string[]> {
  const seen: string[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const remoteAddress of PEERS) {
      for (const forwarded of FORWARDED) {
        const response = await app.inject({ url: '/', remoteAddress, headers: { 'x-forwarded-for': forwarded, 'x-forwarded-host': 'proxied.example', host: 'direct.example' } });
        seen.push(`${remoteAddress} | ${forwarded} -> ${response.body}`);
      }
    }
  }
  return seen;
}

describe('cachedProxyTrust', () => {
  it.each(LISTS)('gives the client address and host fastify derives from the list itself: %j', async (...list) => {
    const expected = await ipsSeenBy(echoIp(list), 1);
    // Twice: the second round answers from the cached verdicts.
    expect(await ipsSeenBy(echoIp(cachedProxyTrust(list)), 2)).toEqual([...expected, ...expected]);
  });

  it('keeps its verdicts per list: two apps in one process trusting different proxies', () => {
    const loopback = cachedProxyTrust(['127.0.0.1']);
    const private10 = cachedProxyTrust(['10.0.0.0/8']);
    expect([loopback('127.0.0.1', 0), private10('127.0.0.1', 0)]).toEqual([true, false]);
    expect([loopback('10.1.2.3', 0), private10('10.1.2.3', 0)]).toEqual([false, true]);
  });

  it('stays right once more addresses than it keeps have been judged', () => {
    const trust = cachedProxyTrust(['10.0.0.0/8']);
    for (let round = 0; round < 2; round++) {
      for (let index = 0; index < 3000; index++) {
        const address = `${index % 2 === 0 ? 10 : 11}.0.${index >> 8}.${index & 255}`;
        expect(trust(address, 1)).toBe(index % 2 === 0);
      }
    }
  });

  it('trusts no address once the socket is gone (fastify asks with undefined), as proxy-addr', () => {
    const trust = cachedProxyTrust(['10.0.0.0/8']);
    expect(trust(undefined as unknown as string, 0)).toBe(false);
  });

  it('refuses an entry that is not an address or a CIDR, as fastify does', () => {
    expect(() => Fastify({ trustProxy: ['10.0.0.0/33'] })).toThrow(/invalid range/);
    expect(() => cachedProxyTrust(['10.0.0.0/33'])).toThrow(/invalid range on address: 10.0.0.0\/33/);
    expect(() => cachedProxyTrust(['proxy.internal'])).toThrow(/invalid IP address: proxy.internal/);
  });
});

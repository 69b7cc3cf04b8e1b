import { describe, expect, it } from 'vitest';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { clientAddressOf, type TrustProxySetting } from '../../src/http/clientAddress.js';
import { cachedProxyTrust } from '../../src/http/proxyTrust.js';

/**
 * clientAddressOf answers what fastify's request.ip answers for the same trustProxy setting, for a
 * request fastify never makes (the direct pixel): asked here side by side on the same raw requests.
 */
const SETTINGS: Array<[string, TrustProxySetting]> = [
  ['no proxy', false],
  ['every hop', true],
  ['a hop count', 2],
  ['the loopback', cachedProxyTrust(['127.0.0.1'])],
  ['two ranges', cachedProxyTrust(['loopback', '10.0.0.0/8'])],
  ['an IPv6 range', cachedProxyTrust(['::1', 'fc00::/7'])],
];

const SOCKETS = ['127.0.0.1', '10.1.2.3', '203.0.113.9', '::1', 'fd00::5'];

const FORWARDED: Array<string | undefined> = [
  undefined,
  '',
  '  ',
  '73.162.10.20',
  ' 73.162.10.20 ',
  '73.162.10.20, 10.0.0.7',
  '73.162.10.20,10.9.9.9, 127.0.0.1',
  '2003:e1:bf00::1,\t10.0.0.1',
  '73.162.10.20,,10.0.0.1,',
  ' , ',
  'not an address, 10.0.0.1',
  '203.0.113.1, 73.162.10.20, 10.0.0.1, 10.0.0.2',
];

describe('clientAddressOf', () => {
  for (const [name, setting] of SETTINGS) {
    it(`answers fastify's request.ip with ${name}`, async () => {
      const address = clientAddressOf(setting);
      const app = Fastify({ trustProxy: setting as FastifyServerOptions['trustProxy'] });
      app.get('/', async (request) => ({ fastify: request.ip ?? null, ours: address(request.raw) ?? null }));
      await app.ready();
      try {
        for (const remoteAddress of SOCKETS) {
          for (const forwarded of FORWARDED) {
            const response = await app.inject({ method: 'GET', url: '/', remoteAddress, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } });
            const { fastify, ours } = response.json() as { fastify: string | null; ours: string | null };
            expect(ours, `socket ${remoteAddress}, X-Forwarded-For ${JSON.stringify(forwarded)}`).toBe(fastify);
          }
        }
      } finally {
        await app.close();
      }
    });
  }

  it('takes the forwarded entries from the last to the first, stopping at the first untrusted hop', async () => {
    const address = clientAddressOf(cachedProxyTrust(['127.0.0.1', '10.0.0.0/8']));
    const app = Fastify();
    app.get('/', async (request) => ({ ip: address(request.raw) }));
    const ask = async (forwarded: string) => (await app.inject({ method: 'GET', url: '/', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': forwarded } })).json<{ ip: string }>().ip;
    expect(await ask('73.162.10.20, 10.0.0.7')).toBe('73.162.10.20');
    expect(await ask('203.0.113.1, 73.162.10.20, 10.0.0.7')).toBe('73.162.10.20');
    expect(await ask('10.0.0.9, 10.0.0.7')).toBe('10.0.0.9');
    await app.close();
  });
});

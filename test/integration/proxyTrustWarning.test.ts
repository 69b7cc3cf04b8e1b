import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loggerOptions } from '../../src/http/requestLogging.js';
import { testConfig, testStores } from '../helpers/testApp.js';

/** The warnings about TRUST_PROXY an app logs while it starts with it (unset when undefined). */
async function startWarnings(trustProxy: string | undefined): Promise<Array<{ msg: string; TRUST_PROXY: unknown }>> {
  const { stores } = await testStores();
  const lines: string[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'adsvc-proxy-'));
  const app = await buildApp({
    config: testConfig(dataDir, trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }),
    db: stores.db,
    ch: stores.ch,
    secrets: { adminToken: 'test-admin-token-0123456789', trackingSecret: 'test-tracking-secret-0123456789abcdef0123456789' },
    logger: { ...loggerOptions('info'), stream: { write: (line: string) => lines.push(line) } },
  });
  try {
    await app.ready();
    return lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40 && 'TRUST_PROXY' in entry);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('TRUST_PROXY settings that make client addresses unreliable', () => {
  it('warns once at start for true (the client writes the leftmost X-Forwarded-For) and for a hop count (no proxy trusted)', async () => {
    const always = await startWarnings('true');
    expect(always).toHaveLength(1);
    expect(always[0]).toMatchObject({ TRUST_PROXY: true });
    expect(always[0]!.msg).toMatch(/leftmost X-Forwarded-For/);
    const hops = await startWarnings('2');
    expect(hops).toHaveLength(1);
    expect(hops[0]).toMatchObject({ TRUST_PROXY: 2 });
    expect(hops[0]!.msg).toMatch(/hop count/);
  });

  it('says nothing for a list of load balancer addresses or when unset', async () => {
    expect(await startWarnings('10.0.0.0/8, loopback')).toEqual([]);
    expect(await startWarnings(undefined)).toEqual([]);
  });
});

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import { startTestApp, startTestAppOn, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, fromAddress, rollupOf, serveClaims, signedToken, trackedLineItem, waitForEvents } from '../helpers/trackingFixtures.js';

/**
 * Embedded ClickHouse reads spooled bodies from DATA_DIR with its file() reader, which takes some
 * characters for a file pattern. A DATA_DIR with ordinary unusual characters (a space, a quote, a
 * plus) must still get billable events written. One the reader cannot name is refused by the
 * configuration (test/unit/config.test.ts) before anything is opened.
 */
const IMPRESSION_PRICE = 2_500_000;
let first: TestContext;

beforeAll(async () => {
  first = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
});
afterAll(async () => {
  await first?.close();
});

function dataDirNamed(name: string): string {
  const dir = path.join(inject('testRoot'), `${name}-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe.runIf(process.env.ADSVC_TEST_CLICKHOUSE_URL === undefined)('DATA_DIR paths and the embedded engine', () => {
  it('bills an impression spooled under a DATA_DIR with a space, a quote and a plus', async () => {
    const other = await startTestAppOn(first.stores, dataDirNamed("o'brien data +1"), { TRUST_PROXY: '127.0.0.1' });
    try {
      const item = await trackedLineItem(other);
      const token = signedToken(other, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
      expect((await fromAddress(other, `${IMPRESSION_PATH}${token}`, ADDRESSES.comcastResidential)).statusCode).toBe(200);
      expect((await waitForEvents(other, item.lineItemId, 1)).map((event) => event.ivt)).toEqual(['']);
      expect(await rollupOf(other, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
    } finally {
      await other.close();
    }
  });
});

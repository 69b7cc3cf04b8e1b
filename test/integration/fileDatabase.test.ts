import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgres, type Postgres } from '../../src/store/postgres.js';
import { migratePostgres } from '../../src/store/migrate.js';
import { createFileDatabase } from '../helpers/fileDatabase.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { startTestApp, startTestAppOn, testDatabaseUrl, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createCertifiedPlacement, createPublisher } from '../helpers/factories.js';
import { eventuallyServed, serve, servableLineItem, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';

/**
 * On a PostgreSQL server every test file has a database of its own (test/helpers/fileDatabase.ts).
 * Serving reads the whole catalog of its database, so on a shared one a line item another file
 * leaves active without targeting is served on this file's placements: budgets.test.ts once got
 * such a line item where it expected its own fallback.
 */
const fileDatabases = inject('fileDatabases');

describe.runIf(testDatabaseUrl !== undefined)('a database of its own for each test file on a PostgreSQL server', () => {
  let ctx: TestContext;
  let other: TestContext;
  let otherDb: Postgres;

  beforeAll(async () => {
    ctx = await startTestApp();
    // Another file's database, as its setup makes it; the same ClickHouse (chdb is one per process).
    otherDb = await openPostgres({ databaseUrl: await createFileDatabase(fileDatabases!.baseUrl, fileDatabases!.prefix), dataDir: tempDirectory('other-file-') });
    await migratePostgres(otherDb);
    other = await startTestAppOn({ db: otherDb, ch: ctx.stores.ch, close: () => otherDb.close() }, tempDirectory('other-file-'));
  });
  afterAll(async () => {
    await other?.close();
    await otherDb?.close();
    await ctx?.close();
  });

  /** A certified placement and a cheap line item on a fresh keyword: what a test expects to be served there. */
  async function placementWithItsOwnLineItem(on: TestContext) {
    const advertiser: Advertiser = await createAdvertiser(on);
    const publisher = await createPublisher(on);
    const placement = await createCertifiedPlacement(on, publisher.id);
    const word = uniqueWord();
    const own = await servableLineItem(on, advertiser, { bids: { bid_type: 'cpc', bid_value: 0.01 }, targeting: { keywords: { include: [word] } } });
    return { advertiser, token: publisher.token, body: { placement_id: placement, context: { query: word, response: '' } }, own };
  }

  it("never serves a line item another file left active without targeting", async () => {
    const elsewhere = await placementWithItsOwnLineItem(other);
    const here = await placementWithItsOwnLineItem(ctx);
    await eventuallyServed(ctx, here.token, here.body, here.own.lineItemId);
    // On the other file's database it outbids every cheap line item on every placement...
    const untargeted = await servableLineItem(other, elsewhere.advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, targeting: {} });
    await eventuallyServed(other, elsewhere.token, elsewhere.body, untargeted.lineItemId);
    // ...and this file, on a database of its own, still serves its own.
    expect(testDatabaseUrl).not.toBe(fileDatabases!.baseUrl);
    expect(servedLineItem(ctx, await serve(ctx, here.token, here.body))).toBe(here.own.lineItemId);
  });
});

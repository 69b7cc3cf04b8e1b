import { randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testDatabaseUrl, testStores, type TestContext } from '../helpers/testApp.js';
import { eventually } from '../helpers/eventually.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { claimsOf, creative, eventuallyServed, serve, servableLineItem, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { pruneCatalogChanges, readHorizon } from '../../src/serving/catalogChanges.js';
import { CatalogSnapshot, snapshotLogLimit, snapshotStamp } from '../../src/serving/catalogSnapshot.js';
import { CATALOG_QUERIES, loadCatalog, type LineItemRow } from '../../src/serving/catalogQueries.js';
import { groupCreativeRows } from '../../src/serving/creativeGroups.js';

// A restart builds the ad index from DATA_DIR/catalog-snapshot and the change log since it
// (src/serving/catalogSnapshot.ts). Each test checks the first serve after the restart, without
// waiting: what the index holds when the service starts answering must already be current.

let advertiser: Advertiser;
let publisher: { id: string; token: string };
let placementId: string;

beforeAll(async () => {
  const ctx = await startTestApp();
  try {
    advertiser = await createAdvertiser(ctx);
    publisher = await createPublisher(ctx);
    placementId = (await createPlacement(ctx, publisher.id)).id;
  } finally {
    await ctx.close();
  }
});

function about(word: string) {
  return { placement_id: placementId, context: { query: `what about ${word}?`, response: `On ${word}.` } };
}

async function firstServe(ctx: TestContext, word: string): Promise<string | null> {
  return servedLineItem(ctx, await serve(ctx, publisher.token, about(word)));
}

async function snapshotFile(name: 'base' | 'log' | 'base.tmp' | 'log.tmp' | '' = ''): Promise<string> {
  return path.join((await testStores()).dataDir, 'catalog-snapshot', name);
}

/** A line of the snapshot's files as the service writes them: the JSON text's CRC-32 in hex, a space, the JSON text. */
function snapshotLine(record: object): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** The base's id (in its header line): a start that read the catalog in full wrote a new base. */
async function baseId(): Promise<string> {
  const text = readFileSync(await snapshotFile('base'), 'utf8');
  return (JSON.parse(text.slice(text.indexOf('{'), text.indexOf('\n'))) as { id: string }).id;
}

/** Runs `fn` on a started app and stops it (which records the change-log horizon and waits for snapshot writes). */
async function withApp<T>(fn: (ctx: TestContext) => Promise<T>): Promise<T> {
  const ctx = await startTestApp();
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

/** A line item targeting `word`, once the app serves it; its id. */
async function servedLineItemOn(ctx: TestContext, word: string, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await servableLineItem(ctx, advertiser, { ...fields, targeting: { keywords: { include: [word] } } });
  await eventuallyServed(ctx, publisher.token, about(word), created.lineItemId);
  return created.lineItemId;
}

async function sql(text: string, params: unknown[] = []): Promise<void> {
  await (await testStores()).stores.db.query(text, params);
}

describe('the catalog snapshot', () => {
  it('serves from the first request what changed while the service was down', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const [first, second, third] = await withApp(async (ctx) => {
      const items = [];
      for (const bid of [3, 2, 1]) items.push(await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: bid }, targeting }));
      await eventuallyServed(ctx, publisher.token, about(word), items[0]!.lineItemId);
      return items;
    });
    const id = await baseId();

    // While down: the best line item paused, the next one's daily budget gone.
    await sql(`UPDATE line_items SET status = 'paused' WHERE id = $1`, [first!.lineItemId]);
    await sql('UPDATE line_items SET budget_daily = 0 WHERE id = $1', [second!.lineItemId]);

    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBe(third!.lineItemId);
    });
    expect(await baseId()).toBe(id);
  });

  it('ranks by the delivery history in ClickHouse from the first serve after a start, from the base or a full read', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const [dearer, cheaper] = await withApp(async (ctx) => {
      const items = [];
      for (const bid of [100, 50]) items.push(await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: bid }, targeting }));
      // Without history both have the prior 1% CTR: 100 x 1% beats 50 x 1%.
      await eventuallyServed(ctx, publisher.token, about(word), items[0]!.lineItemId);
      return items;
    });
    // While down, another instance delivered 10,000 impressions of the dearer one without a click:
    // its estimated CTR is now 2 / 10,200, and 100 x 0.02% is below 50 x 1%.
    const { ch } = (await testStores()).stores;
    await ch.client.insert({
      table: 'daily_stats_v1',
      values: [{ day: new Date().toISOString().slice(0, 10), campaign_id: dearer!.campaignId, line_item_id: dearer!.lineItemId, placement_id: placementId, impressions: 10_000, clicks: 0, conversions: 0, spend_nanos: 0, revenue_nanos: 0 }],
      format: 'JSONEachRow',
      clickhouse_settings: { insert_deduplication_token: randomUUID() },
    });
    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBe(cheaper!.lineItemId);
    });
    rmSync(await snapshotFile(), { recursive: true, force: true });
    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBe(cheaper!.lineItemId);
    });
  });

  it('writes the base of a full read once the service listens, and a restart from that base alone serves what changed since', async () => {
    const word = uniqueWord();
    const lineItem = await withApp((ctx) => servedLineItemOn(ctx, word));
    rmSync(await snapshotFile(), { recursive: true, force: true });

    const saved = mkdtempSync(path.join(tmpdir(), 'snapshot-'));
    try {
      await withApp(async (ctx) => {
        // Read in full: the base is not written on the start's path, only once the service listens.
        expect(existsSync(await snapshotFile('base'))).toBe(false);
        await ctx.app.listen({ port: 0, host: '127.0.0.1' });
        await eventually(async () => existsSync(await snapshotFile('log')) || undefined, 'the base written after the listen');
        // What a crash at this point would leave: the base and its empty log, no record of the stop.
        for (const name of ['base', 'log'] as const) copyFileSync(await snapshotFile(name), path.join(saved, name));
      });
      for (const name of ['base', 'log'] as const) copyFileSync(path.join(saved, name), await snapshotFile(name));
      const id = await baseId();

      await sql(`UPDATE line_items SET status = 'paused' WHERE id = $1`, [lineItem]);
      await withApp(async (ctx) => {
        expect(await firstServe(ctx, word)).toBeNull();
      });
      // The restart used that base (a full read would have written another).
      expect(await baseId()).toBe(id);
    } finally {
      rmSync(saved, { recursive: true, force: true });
    }
  });

  it('holds what the index was patched with while the service ran', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const ids = await withApp(async (ctx) => {
      const high = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 2 }, targeting });
      const low = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, targeting });
      await eventuallyServed(ctx, publisher.token, about(word), high.lineItemId);
      const paused = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/line-items/${high.lineItemId}`, { status: 'paused' });
      expect(paused.statusCode).toBe(200);
      await eventuallyServed(ctx, publisher.token, about(word), low.lineItemId);
      return { low: low.lineItemId, base: await baseId() };
    });

    // The change log is read from the horizon recorded at the stop: these changes come from the snapshot's log.
    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBe(ids.low);
    });
    expect(await baseId()).toBe(ids.base);
  });

  // Not on the server pass: pruning the change log every test file shares would make the other files' instances rebuild.
  it.skipIf(testDatabaseUrl !== undefined)('reads the catalog in full when the changes since the snapshot were pruned', async () => {
    const word = uniqueWord();
    const lineItem = await withApp((ctx) => servedLineItemOn(ctx, word));
    const id = await baseId();

    await sql(`UPDATE line_items SET status = 'paused' WHERE id = $1`, [lineItem]);
    const { db } = (await testStores()).stores;
    await pruneCatalogChanges(db, await readHorizon(db));

    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBeNull();
    });
    expect(await baseId()).not.toBe(id);
  });

  it.each([
    ['torn', (file: string) => truncateSync(file, Math.floor(statSync(file).size / 2))],
    [
      'of another set of migrations',
      (file: string) => {
        const text = readFileSync(file, 'utf8');
        const end = text.indexOf('\n');
        const header = JSON.parse(text.slice(text.indexOf(' ') + 1, end)) as { migrations: string };
        writeFileSync(file, snapshotLine({ ...header, migrations: `${header.migrations}x` }) + text.slice(end + 1));
      },
    ],
  ])('reads the catalog in full when the base is %s', async (_case, spoil) => {
    const word = uniqueWord();
    const lineItem = await withApp((ctx) => servedLineItemOn(ctx, word));
    const id = await baseId();
    spoil(await snapshotFile('base'));
    await sql(`UPDATE line_items SET status = 'paused' WHERE id = $1`, [lineItem]);

    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBeNull();
    });
    expect(await baseId()).not.toBe(id);
  });

  it('reads the catalog in full when the snapshot is ahead of the database', async () => {
    const word = uniqueWord();
    const lineItem = await withApp((ctx) => servedLineItemOn(ctx, word));
    // The next record of the log names an xmin this database has not reached (a database restored to an earlier point).
    const log = await snapshotFile('log');
    const records = readFileSync(log, 'utf8').split('\n').filter(Boolean).length - 1;
    appendFileSync(log, snapshotLine({ seq: records + 1, horizon: '999999999999' }));
    const id = await baseId();
    await sql(`UPDATE line_items SET status = 'paused' WHERE id = $1`, [lineItem]);

    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBeNull();
    });
    expect(await baseId()).not.toBe(id);
  });

  // Not on the server pass: setting back the change log's sequence every test file shares would hand its ids out again.
  it.skipIf(testDatabaseUrl !== undefined)('reads the catalog in full when the change log is behind the snapshot (a restore in place)', async () => {
    const { db } = (await testStores()).stores;
    const end = async () => (await db.query<{ end: string }>('SELECT last_value::text AS end FROM catalog_changes_id_seq')).rows[0]!.end;
    const dumped = await end();
    const word = uniqueWord();
    const lineItem = await withApp((ctx) => servedLineItemOn(ctx, word));
    const id = await baseId();

    // What pg_restore --clean does to what was written after the dump: the rows gone without
    // triggers (it restores tables, not changes), the change log and its sequence as they were.
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL session_replication_role = replica`);
      await tx.query('DELETE FROM creatives WHERE line_item_id = $1', [lineItem]);
      await tx.query('DELETE FROM line_items WHERE id = $1', [lineItem]);
      await tx.query('DELETE FROM catalog_changes WHERE id > $1', [dumped]);
      await tx.query(`SELECT setval('catalog_changes_id_seq', $1)`, [dumped]);
    });

    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBeNull();
    });
    expect(await baseId()).not.toBe(id);
  });

  it('replays a log up to a torn last line and goes on from there', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const { high, low } = await withApp(async (ctx) => {
      const items = [];
      for (const bid of [2, 1]) items.push(await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: bid }, targeting }));
      await eventuallyServed(ctx, publisher.token, about(word), items[0]!.lineItemId);
      return { high: items[0]!.lineItemId, low: items[1]!.lineItemId };
    });
    appendFileSync(await snapshotFile('log'), '{"seq": 999999, "horizon": "1');
    const id = await baseId();

    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBe(high);
    });
    await sql(`UPDATE line_items SET status = 'paused' WHERE id = $1`, [high]);
    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBe(low);
    });
    expect(await baseId()).toBe(id);
    expect(readFileSync(await snapshotFile('log'), 'utf8')).not.toContain('999999');
  });

  it('reads the catalog in full when a log line in the middle is damaged but still parses', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const { high, low } = await withApp(async (ctx) => {
      const items = [];
      for (const bid of [2, 1]) items.push(await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: bid }, targeting }));
      await eventuallyServed(ctx, publisher.token, about(word), items[0]!.lineItemId);
      const paused = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/line-items/${items[0]!.lineItemId}`, { status: 'paused' });
      expect(paused.statusCode).toBe(200);
      await eventuallyServed(ctx, publisher.token, about(word), items[1]!.lineItemId);
      return { high: items[0]!.lineItemId, low: items[1]!.lineItemId };
    });
    // The pause's patch is the log's last with rows; the stop's horizon follows it. Same length, still JSON, no `rows` key.
    const log = await snapshotFile('log');
    const lines = readFileSync(log, 'utf8').split('\n');
    const pause = lines.map((line) => line.includes('"rows":')).lastIndexOf(true);
    expect(pause).toBeGreaterThan(0);
    expect(lines.slice(pause + 1).some((line) => line.includes('"horizon"'))).toBe(true);
    lines[pause] = lines[pause]!.replace('"rows":', '"rowz":');
    writeFileSync(log, lines.join('\n'));
    const id = await baseId();

    await withApp(async (ctx) => {
      const served = await firstServe(ctx, word);
      expect(served).not.toBe(high);
      expect(served).toBe(low);
    });
    expect(await baseId()).not.toBe(id);
  });

  it('reads the catalog in full when a byte of the base is changed in place (a bid)', async () => {
    const word = uniqueWord();
    const lineItem = await withApp((ctx) => servedLineItemOn(ctx, word, { bids: { bid_type: 'cpc', bid_value: 0.1 } }));
    // A base that holds the line item (not only the log): a start without a snapshot reads in full and writes one.
    rmSync(await snapshotFile(), { recursive: true, force: true });
    await withApp(async () => undefined);
    const base = await snapshotFile('base');
    const text = readFileSync(base, 'utf8');
    const bid = text.indexOf('0.100000', text.indexOf(lineItem));
    expect(text.indexOf(lineItem)).toBeGreaterThan(0);
    expect(bid).toBeGreaterThan(0);
    // Same size, still JSON: $9.10 a click instead of $0.10.
    writeFileSync(base, `${text.slice(0, bid)}9${text.slice(bid + 1)}`);
    const id = await baseId();

    await withApp(async (ctx) => {
      const response = await serve(ctx, publisher.token, about(word));
      expect(servedLineItem(ctx, response)).toBe(lineItem);
      // The API's price: 0.10 USD a click, in nano-USD.
      expect(claimsOf(ctx, response).n).toBe(100_000_000);
    });
    expect(await baseId()).not.toBe(id);
  });

  it('serves the creatives of a line item in the base as a full read does, in turn, without one whose destination is not a URL', async () => {
    const word = uniqueWord();
    const cards = [creative('First card'), { ...creative('Second card'), image_url: 'https://cdn.example.com/second.png', destination_url: 'https://shop.example.org/a?b=1' }, creative('Third card')];
    const otherWord = uniqueWord();
    const [lineItem, other] = await withApp(async (ctx) => [await servedLineItemOn(ctx, word, { creatives: cards }), await servedLineItemOn(ctx, otherWord)]);
    // Written before the API checked destinations: not servable, so not in the base's creatives either.
    await sql(`UPDATE creatives SET destination_url = 'not a url' WHERE (line_item_id = $1 AND title = 'Third card') OR line_item_id = $2`, [lineItem, other]);
    rmSync(await snapshotFile(), { recursive: true, force: true });
    const renders = async (ctx: TestContext) => {
      const seen = [];
      for (let i = 0; i < 4; i++) {
        const response = await serve(ctx, publisher.token, about(word));
        expect(servedLineItem(ctx, response)).toBe(lineItem);
        seen.push((response.json() as { ad: { render: { title: string } } }).ad.render);
      }
      return seen;
    };
    // A line item without a servable creative is left out, by a full read and from the base alike.
    const withoutOther = async (ctx: TestContext) => {
      const response = await serve(ctx, publisher.token, about(otherWord));
      expect(response.statusCode).toBe(200);
      expect(servedLineItem(ctx, response)).toBeNull();
      return renders(ctx);
    };
    // A start that reads the catalog in full (and writes the base), then a restart from that base.
    const fromFullRead = await withApp(withoutOther);
    const id = await baseId();
    const fromBase = await withApp(withoutOther);
    expect(await baseId()).toBe(id);
    expect(fromBase).toEqual(fromFullRead);
    expect(fromBase.map((render) => render.title)).toEqual(['First card', 'Second card', 'First card', 'Second card']);
    expect(fromBase[1]).toMatchObject({ image_url: 'https://cdn.example.com/second.png', display_url: 'shop.example.org', brand_name: 'Brandco' });
  });

  it("reads every column of the line items from the engine's rows as a query does, in a full read and from the base", async () => {
    const word = uniqueWord();
    const { lineItemId: lineItem } = await withApp((ctx) =>
      servableLineItem(ctx, advertiser, {
        brandName: 'Brändco "quoted" \\ back ✓',
        budget: { daily: 12.5, currency: 'EUR', lifetime: 99.99, pacing: 'asap' },
        targeting: { keywords: { include: [word] } },
        lineItem: { frequency_cap: { impressions: 3, per: 'day' } },
      }),
    );
    // A flight with microseconds (a Date keeps milliseconds) and an end written with another offset.
    await sql(`UPDATE campaigns SET starts_at = '2020-02-29 23:59:59.123456+00', ends_at = '2999-01-01 12:00:00+05:30' WHERE id = (SELECT campaign_id FROM line_items WHERE id = $1)`, [lineItem]);
    const { db } = (await testStores()).stores;
    const read = await loadCatalog(db);
    const { rows } = await db.query<LineItemRow>(CATALOG_QUERIES[2]);
    const byId = (a: LineItemRow, b: LineItemRow) => (a.id < b.id ? -1 : 1);
    expect([...read.lineItems].sort(byId)).toEqual([...rows].sort(byId));
    expect(read.lineItems.find((row) => row.id === lineItem)).toMatchObject({
      brand_name: 'Brändco "quoted" \\ back ✓',
      budget_currency: 'EUR',
      budget_pacing: 'asap',
      targeting: { keywords: { include: [word] } },
      frequency_cap: { impressions: 3, per: 'day' },
      starts_at: new Date('2020-02-29T23:59:59.123Z'),
      ends_at: new Date('2999-01-01T06:30:00Z'),
    });

    // The base keeps those rows: a restart reads the same line items from it.
    const directory = mkdtempSync(path.join(tmpdir(), 'adsvc-base-'));
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
    try {
      const written = (await CatalogSnapshot.open(directory, db, log))!;
      written.replaceBase(read.horizon, read, { lineItemRows: read.lineItemRows, creativeRows: read.creativeRows, ranges: groupCreativeRows(read.creativeRows, read.lineItems).ranges });
      written.startWriting();
      await written.flush();
      const loaded = await (await CatalogSnapshot.open(directory, db, log))!.load();
      expect(loaded!.rows.lineItems).toEqual(read.lineItems);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('stops the log at the limit a start would replay, removing the snapshot, and the next start reads in full', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const limit = { ...snapshotLogLimit };
    // The limit of a small test catalog: 16 MB of patches would take too long to write.
    Object.assign(snapshotLogLimit, { maxLogShare: 0, logBytesAlwaysReplayed: 4_000 });
    let last: string;
    try {
      last = await withApp(async (ctx) => {
        let lineItem = '';
        // Each line item's creation and approval append its rows to the log: well past 4,000 bytes.
        for (let bid = 1; bid <= 8; bid += 1) {
          lineItem = (await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: bid }, targeting })).lineItemId;
          await eventuallyServed(ctx, publisher.token, about(word), lineItem);
        }
        return lineItem;
      });
    } finally {
      Object.assign(snapshotLogLimit, limit);
    }
    expect(existsSync(await snapshotFile('base'))).toBe(false);
    expect(existsSync(await snapshotFile('log'))).toBe(false);

    await withApp(async (ctx) => {
      expect(await firstServe(ctx, word)).toBe(last);
    });
    expect(existsSync(await snapshotFile('base'))).toBe(true);
  });

  it('leaves no temporary file behind when the base cannot be written', async () => {
    const base = await snapshotFile('base');
    rmSync(base, { force: true });
    // A directory where the base goes: the write of the new base fails at its rename.
    mkdirSync(base);
    try {
      await withApp(async () => undefined);
      expect(existsSync(await snapshotFile('base.tmp'))).toBe(false);
      expect(existsSync(await snapshotFile('log.tmp'))).toBe(false);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('starts without a snapshot when its directory cannot be created', async () => {
    const word = uniqueWord();
    const directory = await snapshotFile();
    rmSync(directory, { recursive: true, force: true });
    // A file where the directory goes: mkdir fails as on a full or read-only disk.
    writeFileSync(directory, '');
    try {
      await withApp((ctx) => servedLineItemOn(ctx, word));
    } finally {
      rmSync(directory, { force: true });
    }
  });

  // A database dropped and created again under the same name keeps the cluster's identifier and timeline.
  it.runIf(testDatabaseUrl !== undefined)('stamps a database created again under the same name as another database', async () => {
    const name = `adsvc_stamp_${randomUUID().replaceAll('-', '')}`;
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${name}`;
    const { db } = (await testStores()).stores;
    async function stampOfNewDatabase(): Promise<string> {
      await db.exec(`CREATE DATABASE ${name}`);
      const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
      try {
        await pool.query(`CREATE TABLE schema_migrations (name text PRIMARY KEY); INSERT INTO schema_migrations VALUES ('0001_init.sql')`);
        return (await snapshotStamp(pool as never)).database;
      } finally {
        await pool.end();
      }
    }
    try {
      const first = await stampOfNewDatabase();
      await db.exec(`DROP DATABASE ${name}`);
      expect(await stampOfNewDatabase()).not.toBe(first);
    } finally {
      await db.exec(`DROP DATABASE IF EXISTS ${name}`);
    }
  });
});

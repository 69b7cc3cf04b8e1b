import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig, testStores, type TestContext } from '../helpers/testApp.js';
import { buildApp } from '../../src/app.js';
import { loggerOptions } from '../../src/http/requestLogging.js';
import { startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { placementInIndex, serve, servableLineItem, servedLineItem, type Advertiser } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { realSemanticModel } from '../helpers/wordVectors.js';
import { buildAdIndex, creativesOf, CreativeGroup, type AdIndex, type IndexRows } from '../../src/serving/adIndex.js';
import { loadCatalog } from '../../src/serving/catalogQueries.js';
import { CatalogSnapshot } from '../../src/serving/catalogSnapshot.js';
import { SemanticModel } from '../../src/semantic/semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../../src/semantic/wordVectorsFile.js';
import { groupCreativeRows } from '../../src/serving/creativeGroups.js';
import { lineItemVector } from '../../src/semantic/semanticModel.js';
import { convertToUsd } from '../../src/money/usdRates.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string; token_id: string };
let placementId: string;

beforeAll(async () => {
  realSemanticModel();
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher());
  placementId = await placementInIndex(ctx, publisher);
}, 120_000);
afterAll(async () => {
  await ctx.close();
});

const shoes = {
  format: 'contextual_card',
  title: 'Run lighter',
  body: 'Cushioned running shoes for every distance.',
  cta: 'Shop now',
  destination_url: 'https://shoes.example/run',
};

function conversation(query: string, response: string, explain = true) {
  return { placement_id: placementId, context: { query, response }, explain };
}

describe('targeting.semantic', () => {
  it('rejects a min_similarity outside 0..1 with 422 at its path', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/advertiser/campaigns/compose',
      headers: { 'x-api-key': advertiser.key },
      payload: {
        campaign: { name: 'Bad', brand_name: 'B', user_id: advertiser.userId },
        line_item: { title: 'x', budget: { daily: 10, currency: 'USD' }, bids: { bid_type: 'cpc', bid_value: 1 }, targeting: { semantic: { enabled: true, min_similarity: 2 } } },
      },
    });
    expect(response.statusCode).toBe(422);
    expect(JSON.stringify(response.json().error.details)).toContain('semantic');
  });

  it('serves an opted-in line item for a conversation without its keywords, and explains the match when asked', async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['running shoes'] }, placements: { include: [placementId] }, semantic: { enabled: true, min_similarity: 0.4 } },
      creatives: [shoes],
    });
    const response = await eventually(async () => {
      const served = await serve(ctx, publisher.token, conversation('What should I wear for my first marathon?', 'Comfortable clothes that breathe.'));
      return servedLineItem(ctx, served) === lineItemId ? served : undefined;
    }, 'similarity match served');
    const match = response.json().match;
    expect(match.by).toBe('similarity');
    expect(match.min_similarity).toBe(0.4);
    expect(match.similarity).toBeGreaterThanOrEqual(0.4);

    const keyword = await serve(ctx, publisher.token, conversation('Which running shoes for a beginner?', 'Something cushioned.'));
    expect(servedLineItem(ctx, keyword)).toBe(lineItemId);
    expect(keyword.json().match).toEqual({ by: 'keywords', keywords: ['running shoes'] });

    const plain = await serve(ctx, publisher.token, conversation('What should I wear for my first marathon?', 'Comfortable clothes that breathe.', false));
    expect(Object.keys(plain.json())).toEqual(['ad']);
  });

  it("leaves an opted-in line item's creatives unparsed after a full read, as any line item's, its vector made from their text", async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['trail shoes'] }, placements: { include: [placementId] }, semantic: { enabled: true } },
      creatives: [shoes],
    });
    // A start's full read, as servingRoutes builds the index from it: the creatives as the engine's rows, in groups.
    const read = await loadCatalog((await testStores()).stores.db);
    const model = realSemanticModel();
    const { index } = await buildAdIndex(read.horizon, { ...read, creativeGroups: groupCreativeRows(read.creativeRows, read.lineItems).groups }, {
      userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
      spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
      statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
      toUsd: convertToUsd,
      semanticModel: model,
    });
    const entry = index.lineItems.find((lineItem) => lineItem.id === lineItemId)!;
    // Parsed creatives are about 0.9 KB of heap a line item: they wait for the line item's first serve.
    expect(entry.creatives).toBeInstanceOf(CreativeGroup);
    expect(entry.semantic!.vector).toEqual(lineItemVector(model, ['trail shoes'], [shoes]));
    expect(creativesOf(entry).map((creative) => creative.render.title)).toEqual([shoes.title]);
  });

  it('restarts from the vectors and clusters the catalog snapshot kept, and embeds again under other word vectors or from a damaged file', async () => {
    for (const [title, keyword] of [['Trail runners', 'trail running'], ['Tents', 'camping tents'], ['Road bikes', 'road cycling'], ['Espresso', 'coffee beans']]) {
      await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [keyword!] }, semantic: { enabled: true } }, creatives: [{ ...shoes, title: title! }] });
    }
    const { db } = (await testStores()).stores;
    const read = await loadCatalog(db);
    const rows: IndexRows = { ...read, creativeGroups: groupCreativeRows(read.creativeRows, read.lineItems).groups };
    const model = realSemanticModel();
    // Clustered from 2 rows, so that the clusters are kept too.
    const deps = (semanticModel: SemanticModel) => ({
      userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
      spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
      statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
      toUsd: convertToUsd,
      semanticModel,
      semanticClusteredFrom: 2,
    });
    const first = await buildAdIndex(read.horizon, rows, deps(model));
    expect(first.index.semanticMatrices!.certified.clustered).toBe(true);
    const clustersOf = (index: AdIndex, vectors: Array<Float32Array | undefined>) => ({
      certified: index.semanticMatrices!.certified.storedClusters(vectors)!,
      uncertified: index.semanticMatrices!.uncertified.storedClusters(vectors)!,
    });
    const vectorOf = (index: AdIndex) => new Map(index.lineItems.map((entry) => [entry.id, entry.semantic?.vector]));

    const directory = mkdtempSync(path.join(tmpdir(), 'adsvc-semantic-'));
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;
    try {
      // What the refresher does after a full read's build (adIndexRefresher.ts, keepSemantic).
      const written = (await CatalogSnapshot.open(directory, db, log))!;
      written.replaceBase(read.horizon, read, { lineItemRows: read.lineItemRows, creativeRows: read.creativeRows, ranges: groupCreativeRows(read.creativeRows, read.lineItems).ranges });
      written.replaceSemantic(model, Promise.resolve(), () => ({ vectors: first.vectors, clusters: clustersOf(first.index, first.vectors) }));
      written.startWriting();
      await written.flush();

      const restart = async (semanticModel: SemanticModel) => {
        const snapshot = (await CatalogSnapshot.open(directory, db, log))!;
        const loaded = (await snapshot.load())!;
        const stored = await snapshot.loadSemantic(semanticModel, loaded.rows.lineItems.length);
        const built = await buildAdIndex(read.horizon, stored ? { ...loaded.rows, semantic: stored } : loaded.rows, deps(semanticModel));
        return { stored, ...built };
      };
      const restarted = await restart(model);
      expect(restarted.stored).toBeDefined();
      // The kept vectors themselves, not embedded again: the same values, and the clusters as the first build left them.
      restarted.index.lineItems.forEach((entry) => {
        if (entry.semantic) expect(restarted.stored!.vectors).toContain(entry.semantic.vector);
      });
      expect(vectorOf(restarted.index)).toEqual(vectorOf(first.index));
      expect(clustersOf(restarted.index, restarted.vectors)).toEqual(clustersOf(first.index, first.vectors));
      expect(restarted.vectors.filter((vector) => vector !== undefined).length).toBeGreaterThanOrEqual(4);

      // Other word vectors (another file's sha256): embedded again, with them.
      const other = new SemanticModel({ ...readWordVectors(DEFAULT_WORD_VECTORS_PATH)!, fingerprint: 'another file' });
      const otherStart = await restart(other);
      expect(otherStart.stored).toBeUndefined();
      expect(vectorOf(otherStart.index)).toEqual(vectorOf(first.index));

      // A byte of a vector changed in place: not read.
      const file = path.join(directory, 'semantic');
      const good = readFileSync(file);
      const damaged = Buffer.from(good);
      damaged[damaged.length - 200] = damaged[damaged.length - 200]! ^ 0x40;
      writeFileSync(file, damaged);
      expect((await restart(model)).stored).toBeUndefined();

      // A new base: the file names the old one, and is not read.
      const again = (await CatalogSnapshot.open(directory, db, log))!;
      again.replaceBase(read.horizon, read, { lineItemRows: read.lineItemRows, creativeRows: read.creativeRows, ranges: groupCreativeRows(read.creativeRows, read.lineItems).ranges });
      again.startWriting();
      await again.flush();
      writeFileSync(file, good);
      expect((await restart(model)).stored).toBeUndefined();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('serves no ad next to a sensitive conversation, and says which topic vetoed it', async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['dog food'] }, placements: { include: [placementId] } },
    });
    await eventually(async () => (servedLineItem(ctx, await serve(ctx, publisher.token, conversation('Which dog food for a puppy?', ''))) === lineItemId ? true : undefined), 'keyword line item served');
    const vetoed = await serve(ctx, publisher.token, conversation('My dog is gone and I cannot stop crying. What should I do with his dog food?', 'I am so sorry.'));
    expect(vetoed.json()).toMatchObject({ ad: null, match: { by: 'brand_safety', topic: 'bereavement', judged_by: 'similarity' } });
    const byPhrase = await serve(ctx, publisher.token, conversation('Our dog passed away. Can we donate the dog food?', ''));
    expect(byPhrase.json()).toMatchObject({ ad: null, match: { by: 'brand_safety', topic: 'bereavement', judged_by: 'phrase' } });
  });

  // Session 33's held-out batches (bench/semantic/brandSafetyHeldOut*.txt): wrong on main before session 34.
  it('serves no keyword ad next to the sensitive wordings session 33 missed, and one next to the ordinary ones it vetoed', async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['horse', 'wife', 'pills', 'evacuation centre', 'sunscreen', 'clarks', 'first aid', 'hurricane shutters', 'cargador'] }, placements: { include: [placementId] } },
    });
    await eventually(async () => (servedLineItem(ctx, await serve(ctx, publisher.token, conversation('Which saddle for my horse?', ''))) === lineItemId ? true : undefined), 'keyword line item served');
    const sensitive: Array<[string, string, string]> = [
      ['bereavement', 'how do I cope with the loss of my horse of 20 years?', "I'm so sorry. Losing an animal you've shared two decades with is a real loss."],
      ['serious diagnosis', 'the neurologist thinks my wife has ALS, how fast does it progress?', "I'm sorry. ALS progresses differently for everyone; some people live many years."],
      ['self-harm', "I took a bunch of pills an hour ago and now I'm scared", 'Please call emergency services right now and tell them exactly what you took.'],
      ['disaster', 'my town is under water after the river burst its banks, where is the nearest evacuation centre?', "Check your local council's website or social media for the open evacuation centres, or call the emergency information line; take medicines and documents with you."],
    ];
    for (const [topic, query, response] of sensitive) {
      expect((await serve(ctx, publisher.token, conversation(query, response))).json(), query).toMatchObject({ ad: null, match: { by: 'brand_safety', topic } });
    }
    const ordinary: Array<[string, string]> = [
      ["what's the best sunscreen to protect kids from skin cancer?", 'Use a broad-spectrum SPF 50 mineral sunscreen.'],
      ['lost my mum at the shops and ended up buying three pairs of shoes, are Clarks any good?', 'Clarks are comfortable and well made.'],
      ['I want to learn first aid before our baby arrives, any good courses?', 'The British Red Cross and St John Ambulance both run baby and child first aid courses, online or in person, in a couple of hours.'],
      ['are hurricane shutters worth it?', 'Here is some information.'],
      // Spanish is judged by its phrase list only: "murió" said of a phone is not a death.
      ['mi móvil se murió justo antes del viaje, ¿qué cargador portátil compro?', 'Una batería externa de 10.000 mAh es ligera y carga el móvil unas dos veces.'],
    ];
    for (const [query, response] of ordinary) {
      const served = (await serve(ctx, publisher.token, conversation(query, response))).json() as { ad: unknown; match?: { by: string } };
      expect(served.match?.by, query).not.toBe('brand_safety');
      expect(served.ad, query).not.toBeNull();
    }
  });

  // Session 34's leftovers and held-out batch 4 (bench/semantic/brandSafetyHeldOut4.txt): wrong on main before session 35.
  it('serves no keyword ad next to the sensitive wordings session 34 left and batch 4 found, and one next to the ordinary ones they vetoed', async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: {
        keywords: { include: ['trains', 'insurance claim', 'strength', 'flowers', 'terapia', 'button battery', 'slippers', 'bleach', 'send money', 'rental', 'scorpio', 'lemon drizzle', 'tarot', 'ice pack'] },
        placements: { include: [placementId] },
      },
    });
    await eventually(async () => (servedLineItem(ctx, await serve(ctx, publisher.token, conversation('Which tarot deck has the nicest art?', ''))) === lineItemId ? true : undefined), 'keyword line item served');
    const sensitive: Array<[string, string, string]> = [
      ['bereavement', 'my aunt lost her fight last night, any cheap trains to Glasgow tomorrow?', "I'm so sorry about your aunt. Book an advance ticket today if you can."],
      ['disaster', 'the fire took our home and everything in it, how do I start an insurance claim?', "I'm so sorry. Call your insurer's claims line and ask for an emergency payment."],
      ['serious diagnosis', 'I start radiation next week, what should I eat to keep my strength up?', 'Small, frequent meals with protein help you keep your strength up.'],
      ['bereavement', 'what flowers are appropriate to send to a family after a death?', 'White lilies, roses or a simple wreath are traditional.'],
      ['bereavement', 'es normal seguir llorando un año después de perder a mi padre? busco terapia', 'Sí, es normal. La terapia de duelo puede ayudar.'],
      ['accident', "my toddler swallowed a button battery and we're at A&E, what will they do?", 'They will take an X-ray to find it and remove it quickly.'],
      ['bereavement', "it's been a year since we said goodbye to grandma and I still can't throw her slippers away", 'That is completely understandable; keep her slippers as long as you need.'],
      ['accident', 'my 2 year old drank some bleach from under the sink what do i do', 'Call your emergency number now and keep the bleach bottle to show them.'],
      ['disaster', 'my family fled the fighting in Sudan and are in a camp in Chad, how can I send money?', 'Mobile money services let you send money to parts of eastern Chad.'],
    ];
    for (const [topic, query, response] of sensitive) {
      expect((await serve(ctx, publisher.token, conversation(query, response))).json(), query).toMatchObject({ ad: null, match: { by: 'brand_safety', topic } });
    }
    const ordinary: Array<[string, string]> = [
      ["my partner passed on the flat we saw so we're still looking, best rental sites in Manchester?", 'Rightmove, Zoopla and SpareRoom list most rental flats.'],
      ['is a cancer compatible with a scorpio?', 'Here is some information.'],
      ['my grandmother passed on her recipe for lemon drizzle, how do I get it less dry?', 'Pour the syrup over the lemon drizzle while it is still hot.'],
      ['which tarot deck for a beginner? the death card freaks my friend out', 'The Rider-Waite-Smith tarot deck is the classic; the Death card means change.'],
      ['recovering from knee surgery, best ice pack to buy?', 'A wraparound gel ice pack keeps swelling down.'],
    ];
    for (const [query, response] of ordinary) {
      const served = (await serve(ctx, publisher.token, conversation(query, response))).json() as { ad: unknown; match?: { by: string } };
      expect(served.match?.by, query).not.toBe('brand_safety');
      expect(served.ad, query).not.toBeNull();
    }
  });

  // Held-out batch 5 (bench/semantic/brandSafetyHeldOut5.txt) and batch 4's leftovers: wrong on main before session 36.
  it('serves no keyword ad next to the sensitive wordings batch 5 found, and one next to the ordinary ones it vetoed', async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['insurance', 'favourite meal', 'petrol station', 'physio', 'trowel', 'sequel', 'scorpio'] }, placements: { include: [placementId] } },
    });
    await eventually(async () => (servedLineItem(ctx, await serve(ctx, publisher.token, conversation('Which trowel is best?', ''))) === lineItemId ? true : undefined), 'keyword line item served');
    const sensitive: Array<[string, string, string]> = [
      ['disaster', 'water came through the front door at 3am and we lost everything downstairs, insurance said to wait', 'Photograph everything and ask the insurance company for an emergency payment.'],
      ['bereavement', 'first fathers day without him on sunday and the kids want to do something, any ideas', 'You could visit a place he loved or cook his favourite meal.'],
      ['abuse', 'a man pulled a gun on me and took my car at the petrol station', 'Report it to the police right away with a description of the petrol station.'],
      ['serious diagnosis', 'had a stroke last month at 42 and still cant use my right arm properly', 'Much recovery happens in the first months, and physio helps a lot.'],
    ];
    for (const [topic, query, response] of sensitive) {
      expect((await serve(ctx, publisher.token, conversation(query, response))).json(), query).toMatchObject({ ad: null, match: { by: 'brand_safety', topic } });
    }
    const ordinary: Array<[string, string]> = [
      ['my grandma passed on her love of gardening, which trowel should I get her?', 'A stainless steel trowel with a wooden handle is a lovely gift.'],
      ['is suicide squad 2021 a sequel or a reboot?', 'It is a standalone sequel; you can watch it without the 2016 film.'],
      ["what's a cancer woman like in a relationship with a scorpio man", 'Both are water signs: Cancer brings warmth and care, Scorpio depth.'],
    ];
    for (const [query, response] of ordinary) {
      const served = (await serve(ctx, publisher.token, conversation(query, response))).json() as { ad: unknown; match?: { by: string } };
      expect(served.match?.by, query).not.toBe('brand_safety');
      expect(served.ad, query).not.toBeNull();
    }
  });
});

describe('the catalog snapshot keeps the semantic vectors', () => {
  it('writes them at a stop, and a restart from the snapshot reads them instead of embedding the line items again', async () => {
    await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['running shoes'] }, placements: { include: [placementId] }, semantic: { enabled: true, min_similarity: 0.4 } },
      creatives: [shoes],
    });
    // An instance of its own (a DATA_DIR of its own) on this file's stores: its snapshot is written at its stop.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'adsvc-semantic-snapshot-'));
    const start = async (lines: string[]) => {
      const logger = { ...loggerOptions('info'), stream: { write: (line: string) => lines.push(line) } };
      const app = await buildApp({ config: testConfig(dataDir), db: ctx.stores.db, ch: ctx.stores.ch, secrets: ctx.secrets, logger });
      await app.ready();
      return app;
    };
    try {
      const firstLines: string[] = [];
      await (await start(firstLines)).close();
      const messages = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages(firstLines)).toContain('ad index built');
      const semanticFile = path.join(dataDir, 'catalog-snapshot', 'semantic');
      expect(existsSync(semanticFile)).toBe(true);
      const written = statSync(semanticFile);

      const lines: string[] = [];
      const again = await start(lines);
      try {
        expect(messages(lines)).toContain('ad index built from the catalog snapshot and the change log since');
        // Logged whenever a restore embeds and clusters the opted-in line items again.
        expect(messages(lines).filter((message) => message.startsWith('the catalog snapshot keeps no semantic vectors'))).toEqual([]);
        // And the kept vectors match: a conversation without the keywords is served by similarity.
        const served = await serve({ ...ctx, app: again }, publisher.token, conversation('What should I wear for my first marathon?', 'Comfortable clothes that breathe.'));
        expect(served.json().match).toMatchObject({ by: 'similarity' });
      } finally {
        await again.close();
      }
      // Kept, not written again: a restart that had embedded the line items would have replaced it at its stop.
      const after = statSync(semanticFile);
      expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NANOS_PER_USD } from '../src/money/nanoUsd.js';
import { signTrackingToken, type TrackingClaims } from '../src/tracking/trackingToken.js';
import { IMPRESSION_PATH } from '../src/tracking/trackingLinks.js';
import { withStores } from './benchStores.js';
import { benchServeId, serveIdTag } from './benchServeIds.js';
import { generateCatalog } from './catalogGenerator.js';
import { runLoad } from './loadTest.js';
import { seedCatalog } from './seedCatalog.js';
import { seedTenancy } from './seedTenancy.js';
import { BENCH_TRACKING_SECRET } from './serviceProcess.js';
import { compareSides, sidesOf, startSides } from './sideBySide.js';
import { BROWSER_IMAGE_LOAD, browserHeaders, visitorStream } from './trafficMix.js';

/**
 * A probe, not a scenario (sideBySide.ts): two builds of the service on copies of one seeded
 * DATA_DIR, loaded with the track scenario's pixels in alternating rounds, with each one's CPU time
 * per answered pixel. A root given as `stub` runs this build's fastify stub (bench/stubServer.ts) on that side instead.
 * `node dist/bench/pixelSideBySide.js <rootA> <rootB> [rounds] [seconds]`; extra env per side as
 * A_ENV / B_ENV ("K=V,K=V"), extra node flags as A_FLAGS / B_FLAGS ("--flag --flag").
 */
const [rootA, rootB, roundsText = '8', secondsText = '3'] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: pixelSideBySide <rootA> <rootB> [rounds] [seconds]');

async function main(): Promise<void> {
  const seedDir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-pixel-ab-'));
  const seeded = await withStores(path.join(seedDir, 'seed'), async ({ db }) => {
    const tenancy = await seedTenancy(db, 10, 5);
    const catalog = generateCatalog({ lineItems: 200, lineItemsPerCampaign: 5, placements: [] });
    await seedCatalog(db, tenancy.userId, catalog, 'active');
    return { tenancy, catalog };
  });
  const sides = sidesOf(rootA!, rootB!);
  const services = await startSides(sides, seedDir, { TRUST_PROXY: '127.0.0.1' }, 'track');

  const lineItems = seeded.catalog.flatMap((campaign) => campaign.lineItems.map((lineItem) => ({ campaign, lineItem })));
  const certified = seeded.tenancy.placements.filter((placement) => placement.certified).map((placement) => placement.id);
  const all = seeded.tenancy.placements.map((placement) => placement.id);
  const serveTag = serveIdTag(seeded.tenancy.runId);
  const expiresAt = Math.floor(Date.now() / 1000) + 6 * 3600;
  const visitor = visitorStream();
  let next = 0;
  const request = {
    method: 'GET' as const,
    setupRequest: (req: Record<string, unknown>) => {
      const index = next++;
      const { campaign, lineItem } = lineItems[index % lineItems.length]!;
      const bids = lineItem.stored.bids!;
      const model = bids.bid_type as TrackingClaims['m'];
      // Served just now, as serving names it (time first): a pixel follows its serve.
      const servedAtMs = Date.now();
      const claims: TrackingClaims = {
        s: benchServeId(servedAtMs, serveTag, index),
        c: campaign.id,
        l: lineItem.id,
        r: lineItem.creativeIds[index % lineItem.creativeIds.length]!,
        p: model === 'tCPM' ? certified[index % certified.length]! : all[index % all.length]!,
        u: seeded.tenancy.publisherId,
        m: model,
        n: Math.round((model === 'tCPM' ? bids.bid_value / 1000 : bids.bid_value) * NANOS_PER_USD),
        e: expiresAt,
        t: servedAtMs,
      };
      const { ip, userAgent } = visitor(index);
      return { ...req, path: IMPRESSION_PATH + signTrackingToken(claims, BENCH_TRACKING_SECRET), headers: { 'x-forwarded-for': ip, ...browserHeaders(userAgent), ...BROWSER_IMAGE_LOAD } };
    },
  };
  const load = (baseUrl: string, seconds: number) =>
    runLoad({ baseUrl, connections: 10, durationSeconds: seconds, requests: [request as never], expectedStatuses: [200] });

  await compareSides(sides, services, seedDir, load, { rounds: Number(roundsText), seconds: Number(secondsText), warmUpSeconds: 2, unit: 'pixel' });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

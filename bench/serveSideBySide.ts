import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withStores } from './benchStores.js';
import { generateCatalog, generateServeRequests } from './catalogGenerator.js';
import { runLoad } from './loadTest.js';
import { seedCatalog } from './seedCatalog.js';
import { seedTenancy } from './seedTenancy.js';
import { compareSides, sidesOf, startSides } from './sideBySide.js';
import { optedIn, serveBodies } from './scenarios/serveSemanticScenario.js';

/**
 * A probe, not a scenario (sideBySide.ts): two builds of the service on copies of one seeded
 * DATA_DIR (the serve scenario's catalog: 10,000 line items, 40 placements), loaded with the serve
 * scenario's 500 bodies in alternating rounds, with each one's CPU time per answered serve.
 * `node dist/bench/serveSideBySide.js <rootA> <rootB> [rounds] [seconds]`; extra env per side as
 * A_ENV / B_ENV ("K=V,K=V"), extra node flags as A_FLAGS / B_FLAGS ("--flag --flag"). A root given
 * as `stub` runs this build's fastify stub (bench/stubServer.ts) on that side instead.
 *
 * SEMANTIC=1: the serve-semantic scenario's "on" service on both sides (every line item opted into
 * semantic matching) and its mixed bodies (half the serve scenario's, half evaluation conversations):
 * two builds' cost of the matching, in CPU a serve, where that scenario's on / off ratio moves with
 * the machine. SEMANTIC=off-on: the same bodies, A's catalog without the opt-in (that scenario's
 * "off" service), B's with it: what the matching costs a serve, one build on both sides.
 */
const semantic = process.env.SEMANTIC === '1' || process.env.SEMANTIC === 'off-on';
const offOn = process.env.SEMANTIC === 'off-on';
const [rootA, rootB, roundsText = '8', secondsText = '3'] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: serveSideBySide <rootA> <rootB> [rounds] [seconds]');
const LINE_ITEMS = 10_000;

async function main(): Promise<void> {
  const seedDir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-serve-ab-'));
  const tenancy = await withStores(path.join(seedDir, 'seed'), async ({ db }) => {
    const seeded = await seedTenancy(db, 40, 20);
    const catalog = generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: seeded.placements.map((placement) => placement.id) });
    await seedCatalog(db, seeded.userId, semantic ? optedIn(catalog, 1) : catalog, 'active');
    return seeded;
  });
  const sides = sidesOf(rootA!, rootB!);
  // off-on: A on a copy of the seed with every line item's opt-in taken out again.
  const offDir = offOn ? mkdtempSync(path.join(os.tmpdir(), 'adsvc-serve-ab-off-')) : undefined;
  if (offDir !== undefined) {
    cpSync(path.join(seedDir, 'seed'), path.join(offDir, 'seed'), { recursive: true });
    await withStores(path.join(offDir, 'seed'), ({ db }) => db.exec(`UPDATE line_items SET targeting = targeting - 'semantic'`));
  }
  const services = offDir === undefined ? await startSides(sides, seedDir) : [...(await startSides([sides[0]!], offDir)), ...(await startSides([sides[1]!], seedDir))];

  const placementIds = tenancy.placements.map((placement) => placement.id);
  const bodies = semantic ? serveBodies(placementIds).map(({ body }) => body) : generateServeRequests(500, placementIds);
  const requests = bodies.map((body) => ({
    method: 'POST' as const,
    path: '/v1/serve',
    headers: { authorization: `Bearer ${tenancy.publisherToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }));
  const load = (baseUrl: string, seconds: number) => runLoad({ baseUrl, connections: 10, durationSeconds: seconds, requests, expectedStatuses: [200] });

  await compareSides(sides, services, seedDir, load, { rounds: Number(roundsText), seconds: Number(secondsText), warmUpSeconds: 3, unit: 'serve' });
  if (offDir !== undefined) rmSync(offDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

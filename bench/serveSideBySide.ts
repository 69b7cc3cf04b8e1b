import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withStores } from './benchStores.js';
import { generateCatalog, generateServeRequests } from './catalogGenerator.js';
import { runLoad } from './loadTest.js';
import { seedCatalog } from './seedCatalog.js';
import { seedTenancy } from './seedTenancy.js';
import { compareSides, sidesOf, startSides } from './sideBySide.js';

/**
 * A probe, not a scenario (sideBySide.ts): two builds of the service on copies of one seeded
 * DATA_DIR (the serve scenario's catalog: 10,000 line items, 40 placements), loaded with the serve
 * scenario's 500 bodies in alternating rounds, with each one's CPU time per answered serve.
 * `node dist/bench/serveSideBySide.js <rootA> <rootB> [rounds] [seconds]`; extra env per side as
 * A_ENV / B_ENV ("K=V,K=V"), extra node flags as A_FLAGS / B_FLAGS ("--flag --flag"). A root given
 * as `stub` runs this build's fastify stub (bench/stubServer.ts) on that side instead.
 */
const [rootA, rootB, roundsText = '8', secondsText = '3'] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: serveSideBySide <rootA> <rootB> [rounds] [seconds]');
const LINE_ITEMS = 10_000;

async function main(): Promise<void> {
  const seedDir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-serve-ab-'));
  const tenancy = await withStores(path.join(seedDir, 'seed'), async ({ db }) => {
    const seeded = await seedTenancy(db, 40, 20);
    const catalog = generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: seeded.placements.map((placement) => placement.id) });
    await seedCatalog(db, seeded.userId, catalog, 'active');
    return seeded;
  });
  const sides = sidesOf(rootA!, rootB!);
  const services = await startSides(sides, seedDir);

  const requests = generateServeRequests(500, tenancy.placements.map((placement) => placement.id)).map((body) => ({
    method: 'POST' as const,
    path: '/v1/serve',
    headers: { authorization: `Bearer ${tenancy.publisherToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }));
  const load = (baseUrl: string, seconds: number) => runLoad({ baseUrl, connections: 10, durationSeconds: seconds, requests, expectedStatuses: [200] });

  await compareSides(sides, services, seedDir, load, { rounds: Number(roundsText), seconds: Number(secondsText), warmUpSeconds: 3, unit: 'serve' });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

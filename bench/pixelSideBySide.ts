import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NANOS_PER_USD } from '../src/tracking/trackedEvent.js';
import { signTrackingToken, type TrackingClaims } from '../src/tracking/trackingToken.js';
import { IMPRESSION_PATH } from '../src/tracking/trackingLinks.js';
import { withStores } from './benchStores.js';
import { generateCatalog } from './catalogGenerator.js';
import { freePort, startListeningProcess, type ListeningProcess } from './childProcess.js';
import { runLoad } from './loadTest.js';
import { seedCatalog } from './seedCatalog.js';
import { seedTenancy } from './seedTenancy.js';
import { BENCH_ADMIN_TOKEN, BENCH_TRACKING_SECRET } from './serviceProcess.js';
import { visitorStream } from './trafficMix.js';
import { MICROS_PER_TICK, cpuTicks } from './processCpu.js';

/**
 * A probe, not a scenario: two builds of the service (package roots A and B) on copies of one
 * seeded DATA_DIR, loaded with the track scenario's pixels in alternating rounds A B B A ..., with
 * each service's CPU time per answered pixel read from /proc (main thread, and all threads).
 * `node dist/bench/pixelSideBySide.js <rootA> <rootB> [rounds] [seconds]`; extra env per side as
 * A_ENV / B_ENV ("K=V,K=V"), extra node flags as A_FLAGS / B_FLAGS ("--flag --flag").
 */
const [rootA, rootB, roundsText = '8', secondsText = '3'] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: pixelSideBySide <rootA> <rootB> [rounds] [seconds]');

const envOf = (text: string | undefined) => Object.fromEntries((text ?? '').split(',').filter(Boolean).map((pair) => pair.split('=') as [string, string]));

async function main(): Promise<void> {
  const seedDir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-pixel-ab-'));
  const seeded = await withStores(path.join(seedDir, 'seed'), async ({ db }) => {
    const tenancy = await seedTenancy(db, 10, 5);
    const catalog = generateCatalog({ lineItems: 200, lineItemsPerCampaign: 5, placements: [] });
    await seedCatalog(db, tenancy.userId, catalog, 'active');
    return { tenancy, catalog };
  });
  const sides = [
    { name: 'A', root: rootA!, env: envOf(process.env.A_ENV), flags: (process.env.A_FLAGS ?? '').split(' ').filter(Boolean) },
    { name: 'B', root: rootB!, env: envOf(process.env.B_ENV), flags: (process.env.B_FLAGS ?? '').split(' ').filter(Boolean) },
  ];
  const services: ListeningProcess[] = [];
  for (const side of sides) {
    const dataDir = path.join(seedDir, side.name);
    cpSync(path.join(seedDir, 'seed'), dataDir, { recursive: true });
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    services.push(
      await startListeningProcess({
        label: side.name,
        nodeFlags: side.flags,
        script: path.join(side.root, 'dist', 'src', 'main.js'),
        args: ['serve'],
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
          ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
          TRACKING_SECRET: BENCH_TRACKING_SECRET,
          TRACKING_BASE_URL: baseUrl,
          SERVE_BASE_URL: baseUrl,
          TRUST_PROXY: '127.0.0.1',
          ...side.env,
        },
        port,
        readyPath: '/healthz',
      }),
    );
  }

  const lineItems = seeded.catalog.flatMap((campaign) => campaign.lineItems.map((lineItem) => ({ campaign, lineItem })));
  const certified = seeded.tenancy.placements.filter((placement) => placement.certified).map((placement) => placement.id);
  const all = seeded.tenancy.placements.map((placement) => placement.id);
  const servedAtMs = Date.now() - 2000;
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
      const claims: TrackingClaims = {
        s: `ab${index}`,
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
      return { ...req, path: IMPRESSION_PATH + signTrackingToken(claims, BENCH_TRACKING_SECRET), headers: { 'x-forwarded-for': ip, 'user-agent': userAgent } };
    },
  };
  const load = (baseUrl: string, seconds: number) =>
    runLoad({ baseUrl, connections: 10, durationSeconds: seconds, requests: [request as never], expectedStatuses: [200] });

  for (const service of services) await load(service.baseUrl, 2);
  const rounds = Number(roundsText);
  const seconds = Number(secondsText);
  const totals = sides.map(() => ({ responses: 0, seconds: 0, main: 0, allThreads: 0, rounds: [] as number[], bad: 0 }));
  for (let round = 0; round < rounds; round++) {
    // A B B A A B B A ...: each side goes first as often as second.
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const pid = services[i]!.child.pid!;
      const before = cpuTicks(pid);
      const result = await load(services[i]!.baseUrl, seconds);
      const after = cpuTicks(pid);
      const total = totals[i]!;
      total.responses += result.responses;
      total.seconds += result.durationSeconds;
      total.main += after.main - before.main;
      total.allThreads += after.all - before.all;
      total.rounds.push(Math.round(result.requestsPerSecond));
      total.bad += result.unexpected + result.errors;
    }
  }
  const exits: unknown[] = [];
  for (const service of services) exits.push(await service.stop());
  rmSync(seedDir, { recursive: true, force: true });
  const tick = MICROS_PER_TICK;
  sides.forEach((side, i) => {
    const t = totals[i]!;
    console.log(
      `${side.name} ${side.root} ${JSON.stringify(side.env)} ${side.flags.join(' ')}: ${Math.round(t.responses / t.seconds)} req/s, main ${((t.main * tick) / t.responses).toFixed(1)} us/pixel, all threads ${((t.allThreads * tick) / t.responses).toFixed(1)} us/pixel, rounds ${t.rounds.join(' ')}, bad ${t.bad}, exit ${JSON.stringify(exits[i])}`,
    );
  });
  const [a, b] = totals;
  console.log(`B/A req/s ${(b!.responses / b!.seconds / (a!.responses / a!.seconds)).toFixed(3)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

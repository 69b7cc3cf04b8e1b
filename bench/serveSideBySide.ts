import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../src/packageRoot.js';
import { withStores } from './benchStores.js';
import { generateCatalog, generateServeRequests } from './catalogGenerator.js';
import { freePort, startListeningProcess, type ListeningProcess } from './childProcess.js';
import { runLoad } from './loadTest.js';
import { MICROS_PER_TICK, cpuTicks } from './processCpu.js';
import { seedCatalog } from './seedCatalog.js';
import { seedTenancy } from './seedTenancy.js';
import { BENCH_ADMIN_TOKEN, BENCH_TRACKING_SECRET } from './serviceProcess.js';

/**
 * A probe, not a scenario: two builds of the service (package roots A and B) on copies of one
 * seeded DATA_DIR (the serve scenario's catalog: 10,000 line items, 40 placements), loaded with the
 * serve scenario's 500 bodies in alternating rounds A B B A ..., with each service's CPU time per
 * answered serve read from /proc (main thread, and all threads). The main thread's CPU a serve moves
 * far less from run to run than req/s on this shared VM.
 * `node dist/bench/serveSideBySide.js <rootA> <rootB> [rounds] [seconds]`; extra env per side as
 * A_ENV / B_ENV ("K=V,K=V"), extra node flags as A_FLAGS / B_FLAGS ("--flag --flag"). A root given
 * as `stub` runs this build's fastify stub (bench/stubServer.ts) on that side instead.
 */
const [rootA, rootB, roundsText = '8', secondsText = '3'] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: serveSideBySide <rootA> <rootB> [rounds] [seconds]');
const LINE_ITEMS = 10_000;

const envOf = (text: string | undefined) => Object.fromEntries((text ?? '').split(',').filter(Boolean).map((pair) => pair.split('=') as [string, string]));

async function main(): Promise<void> {
  const seedDir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-serve-ab-'));
  const tenancy = await withStores(path.join(seedDir, 'seed'), async ({ db }) => {
    const seeded = await seedTenancy(db, 40, 20);
    const catalog = generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: seeded.placements.map((placement) => placement.id) });
    await seedCatalog(db, seeded.userId, catalog, 'active');
    return seeded;
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
        script: side.root === 'stub' ? path.join(packageRoot, 'dist', 'bench', 'stubServer.js') : path.join(side.root, 'dist', 'src', 'main.js'),
        args: side.root === 'stub' ? ['serve', String(port)] : ['serve'],
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
          ...side.env,
        },
        port,
        readyPath: '/healthz',
      }),
    );
  }

  const requests = generateServeRequests(500, tenancy.placements.map((placement) => placement.id)).map((body) => ({
    method: 'POST' as const,
    path: '/v1/serve',
    headers: { authorization: `Bearer ${tenancy.publisherToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }));
  const load = (baseUrl: string, seconds: number) => runLoad({ baseUrl, connections: 10, durationSeconds: seconds, requests, expectedStatuses: [200] });

  for (const service of services) await load(service.baseUrl, 3);
  const rounds = Number(roundsText);
  const seconds = Number(secondsText);
  const totals = sides.map(() => ({ responses: 0, seconds: 0, main: 0, allThreads: 0, rounds: [] as number[], bad: 0, p99: [] as number[] }));
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
      total.p99.push(result.latency.p99);
      total.bad += result.unexpected + result.errors;
    }
  }
  const exits: unknown[] = [];
  for (const service of services) exits.push(await service.stop());
  rmSync(seedDir, { recursive: true, force: true });
  sides.forEach((side, i) => {
    const t = totals[i]!;
    console.log(
      `${side.name} ${side.root} ${JSON.stringify(side.env)} ${side.flags.join(' ')}: ${Math.round(t.responses / t.seconds)} req/s, main ${((t.main * MICROS_PER_TICK) / t.responses).toFixed(1)} us/serve, all threads ${((t.allThreads * MICROS_PER_TICK) / t.responses).toFixed(1)} us/serve, rounds ${t.rounds.join(' ')}, p99 ${t.p99.map((ms) => ms.toFixed(2)).join(' ')} ms, bad ${t.bad}, exit ${JSON.stringify(exits[i])}`,
    );
  });
  const [a, b] = totals;
  console.log(`B/A req/s ${(b!.responses / b!.seconds / (a!.responses / a!.seconds)).toFixed(3)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

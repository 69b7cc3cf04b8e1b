import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../src/packageRoot.js';
import { freePort, startListeningProcess, type ListeningProcess } from './childProcess.js';
import type { LoadResult } from './loadTest.js';
import { MICROS_PER_TICK, cpuTicks } from './processCpu.js';
import { BENCH_ADMIN_TOKEN, BENCH_TRACKING_SECRET } from './serviceProcess.js';

/**
 * The two-builds probes' shared part (pixelSideBySide.ts, serveSideBySide.ts): two builds of the
 * service (package roots A and B, or `stub` for this build's fastify stub) started on copies of one
 * seeded DATA_DIR, loaded in alternating rounds A B B A ..., with each one's CPU time per answer read
 * from /proc (main thread, and all threads): it moves far less from run to run than req/s on this
 * shared VM. The load generator's own CPU time per answer is printed too: where it is near a whole
 * core's worth of the round, the generator, not the side, set that side's rate. Extra env per side as A_ENV / B_ENV ("K=V,K=V"), extra node flags as A_FLAGS / B_FLAGS.
 */
export interface Side {
  name: 'A' | 'B';
  root: string;
  env: Record<string, string>;
  flags: string[];
}

const envOf = (text: string | undefined) => Object.fromEntries((text ?? '').split(',').filter(Boolean).map((pair) => pair.split('=') as [string, string]));

export function sidesOf(rootA: string, rootB: string): Side[] {
  return [
    { name: 'A', root: rootA, env: envOf(process.env.A_ENV), flags: (process.env.A_FLAGS ?? '').split(' ').filter(Boolean) },
    { name: 'B', root: rootB, env: envOf(process.env.B_ENV), flags: (process.env.B_FLAGS ?? '').split(' ').filter(Boolean) },
  ];
}

/** The side's built entry as `npm start` runs it: the bundle, or for a build from before it (a compared older commit) its main.js. */
function entryOf(root: string): string {
  const bundle = path.join(root, 'dist', 'adsvc.js');
  return existsSync(bundle) ? bundle : path.join(root, 'dist', 'src', 'main.js');
}

/**
 * Starts each side on its own copy of `seedDir/seed`, with the bench's secrets and `env` under the
 * side's own; a `stub` side answers the probe's route (`stubKind`: serve or track, stubServer.ts).
 */
export async function startSides(sides: Side[], seedDir: string, env: Record<string, string> = {}, stubKind: 'serve' | 'track' = 'serve'): Promise<ListeningProcess[]> {
  const services: ListeningProcess[] = [];
  for (const side of sides) {
    const dataDir = path.join(seedDir, side.name);
    cpSync(path.join(seedDir, 'seed'), dataDir, { recursive: true });
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const stub = side.root === 'stub';
    services.push(
      await startListeningProcess({
        label: side.name,
        nodeFlags: side.flags,
        script: stub ? path.join(packageRoot, 'dist', 'bench', 'stubServer.js') : entryOf(side.root),
        args: stub ? [stubKind, String(port)] : ['serve'],
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
          ...env,
          ...side.env,
        },
        port,
        readyPath: '/healthz',
      }),
    );
  }
  return services;
}

interface SideTotals {
  responses: number;
  seconds: number;
  main: number;
  allThreads: number;
  /** This process's CPU time (the load generator: autocannon and the requests it builds), in microseconds. */
  generator: number;
  rounds: number[];
  p99: number[];
  bad: number;
}

/**
 * Warms each service for `warmUpSeconds`, loads them in `rounds` alternating rounds of `seconds`,
 * stops them, deletes `seedDir`, and prints each side's req/s and CPU per answer (`unit`: serve,
 * pixel) and B's req/s over A's.
 */
export async function compareSides(
  sides: Side[],
  services: ListeningProcess[],
  seedDir: string,
  load: (baseUrl: string, seconds: number) => Promise<LoadResult>,
  { rounds, seconds, warmUpSeconds, unit }: { rounds: number; seconds: number; warmUpSeconds: number; unit: string },
): Promise<void> {
  for (const service of services) await load(service.baseUrl, warmUpSeconds);
  const totals: SideTotals[] = sides.map(() => ({ responses: 0, seconds: 0, main: 0, allThreads: 0, generator: 0, rounds: [], p99: [], bad: 0 }));
  for (let round = 0; round < rounds; round++) {
    // A B B A A B B A ...: each side goes first as often as second.
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const pid = services[i]!.child.pid!;
      const before = cpuTicks(pid);
      const generatorBefore = process.cpuUsage();
      const result = await load(services[i]!.baseUrl, seconds);
      const generatorUsed = process.cpuUsage(generatorBefore);
      const after = cpuTicks(pid);
      const total = totals[i]!;
      total.responses += result.responses;
      total.seconds += result.durationSeconds;
      total.main += after.main - before.main;
      total.allThreads += after.all - before.all;
      total.generator += generatorUsed.user + generatorUsed.system;
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
    const perAnswer = (ticks: number) => ((ticks * MICROS_PER_TICK) / t.responses).toFixed(1);
    console.log(
      `${side.name} ${side.root} ${JSON.stringify(side.env)} ${side.flags.join(' ')}: ${Math.round(t.responses / t.seconds)} req/s, main ${perAnswer(t.main)} us/${unit}, all threads ${perAnswer(t.allThreads)} us/${unit}, load generator ${(t.generator / t.responses).toFixed(1)} us/${unit}, rounds ${t.rounds.join(' ')}, p99 ${t.p99.map((ms) => ms.toFixed(2)).join(' ')} ms, bad ${t.bad}, exit ${JSON.stringify(exits[i])}`,
    );
  });
  const [a, b] = totals;
  console.log(`B/A req/s ${(b!.responses / b!.seconds / (a!.responses / a!.seconds)).toFixed(3)}`);
}

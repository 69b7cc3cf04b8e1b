import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { packageRoot } from '../src/packageRoot.js';
import { withStores } from './benchStores.js';
import { generateCatalog } from './catalogGenerator.js';
import { freePort } from './childProcess.js';
import { progress } from './progress.js';
import { optedIn } from './scenarios/serveSemanticScenario.js';
import { seedCatalog } from './seedCatalog.js';
import { BENCH_ADMIN_TOKEN, BENCH_TRACKING_SECRET } from './serviceProcess.js';
import { seedTenancy } from './seedTenancy.js';

const USAGE = `usage: node dist/bench/readyAfterStart.js [--rounds N] [--line-items N] [--semantic-share S] [--data DIR] [name=<build>/dist/adsvc.js ...]

Times \`adsvc serve\` from spawn to the first 200 of /healthz (polled every 20 ms), on embedded
PGlite and chdb: a first start (a copy of DIR/seed, whose catalog snapshot does not exist yet)
and a restart (a copy of DIR/base-<name>, the seed after that build's own first start and stop,
which wrote its snapshot), each build once a round, the builds' order turned each round. The seed
(--line-items line items, the serve bench's catalog; with --semantic-share, that share of them
opted into semantic matching, as serve-semantic's "on" service) is made once and kept in DIR
(default $TMPDIR/adsvc-ready-<line items>[-semantic-<share>]); a base once per build name (remove DIR/base-<name> after
rebuilding that build). Without a name=path, this package's dist/adsvc.js as "this".
Run under the machine's CPU lock, after npm run build.`;

/** How often /healthz is asked while a start runs. */
const POLL_MS = 20;
/** Between a copy (or a stop) and the next spawn: the copy's writeback and the last process's exit settle. */
const SETTLE_MS = 1_000;
const READY_TIMEOUT_MS = 120_000;
const PLACEMENTS = 40;
const CERTIFIED_PLACEMENTS = 20;
/** What each path logs when its index is built (adIndexRefresher.ts): a round on the other path is refused. */
const BUILT_FROM = {
  first: 'ad index built',
  restart: 'ad index built from the catalog snapshot and the change log since',
} as const;

type StartKind = keyof typeof BUILT_FROM;

interface Build {
  name: string;
  entry: string;
  times: Record<StartKind, number[]>;
}

function parseArgs(argv: string[]) {
  let rounds = 5;
  let lineItems = 100_000;
  let semanticShare: number | undefined;
  let data: string | undefined;
  const builds: Build[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value\n\n${USAGE}`);
      return next;
    };
    if (arg === '--rounds') rounds = Number(value());
    else if (arg === '--line-items') lineItems = Number(value());
    else if (arg === '--semantic-share') semanticShare = Number(value());
    else if (arg === '--data') data = path.resolve(value());
    else if (/^[\w.-]+=/.test(arg)) {
      const [name, entry] = [arg.slice(0, arg.indexOf('=')), path.resolve(arg.slice(arg.indexOf('=') + 1))];
      if (!existsSync(entry)) throw new Error(`${name}: no file ${entry}`);
      builds.push({ name, entry, times: { first: [], restart: [] } });
    } else throw new Error(`unknown argument ${arg}\n\n${USAGE}`);
  }
  if (!(Number.isInteger(rounds) && rounds > 0) || !(Number.isInteger(lineItems) && lineItems > 0)) throw new Error(USAGE);
  if (semanticShare !== undefined && !(semanticShare > 0 && semanticShare <= 1)) throw new Error(`--semantic-share takes a share in (0, 1]\n\n${USAGE}`);
  if (builds.length === 0) builds.push({ name: 'this', entry: path.join(packageRoot, 'dist', 'adsvc.js'), times: { first: [], restart: [] } });
  const dataName = `adsvc-ready-${lineItems}${semanticShare === undefined ? '' : `-semantic-${semanticShare}`}`;
  return { rounds, lineItems, semanticShare, data: data ?? path.join(os.tmpdir(), dataName), builds };
}

/** DIR/seed: the tenancy and catalog written by this build's repository code, no catalog snapshot. */
async function ensureSeed(dir: string, lineItems: number, semanticShare: number | undefined): Promise<string> {
  const seed = path.join(dir, 'seed');
  const done = path.join(dir, 'seed.done');
  if (existsSync(done)) return seed;
  rmSync(seed, { recursive: true, force: true });
  mkdirSync(seed, { recursive: true });
  progress(`seeding ${lineItems} line items${semanticShare === undefined ? '' : ` (a share of ${semanticShare} opted into semantic matching)`} into ${seed}`);
  await withStores(seed, async ({ db }) => {
    const tenancy = await seedTenancy(db, PLACEMENTS, CERTIFIED_PLACEMENTS);
    const catalog = generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: tenancy.placements.map((p) => p.id) });
    await seedCatalog(db, tenancy.userId, semanticShare === undefined ? catalog : optedIn(catalog, semanticShare), 'active');
  });
  // A first start is one whose DATA_DIR has no snapshot: nothing may have written one.
  rmSync(path.join(seed, 'catalog-snapshot'), { recursive: true, force: true });
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return seed;
}

function copyOf(from: string, to: string): string {
  rmSync(to, { recursive: true, force: true });
  const copied = spawnSync('cp', ['-a', from, to], { stdio: 'inherit' });
  if (copied.status !== 0) throw new Error(`cp -a ${from} ${to} failed`);
  return to;
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === 200));
    });
    req.once('error', () => resolve(false));
    req.once('timeout', () => req.destroy());
  });
}

/** Spawns the build on `dataDir`, returns the seconds to the first 200 of /healthz, stops it (SIGTERM, waits for its exit). */
async function timeStart(build: Build, dataDir: string, kind: StartKind): Promise<number> {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    TRACKING_SECRET: BENCH_TRACKING_SECRET,
    TRACKING_BASE_URL: `http://127.0.0.1:${port}`,
    SERVE_BASE_URL: `http://127.0.0.1:${port}`,
  };
  const started = performance.now();
  const child = spawn(process.execPath, [build.entry, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let seconds: number | undefined;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${build.name} exited before it was ready:\n${output}`);
      if (await healthy(port)) {
        seconds = (performance.now() - started) / 1000;
        break;
      }
      if (performance.now() - started > READY_TIMEOUT_MS) throw new Error(`${build.name} not ready within ${READY_TIMEOUT_MS} ms:\n${output}`);
      await sleep(POLL_MS);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  const built = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg?: string }).msg);
  if (!built.includes(BUILT_FROM[kind])) throw new Error(`${build.name}'s ${kind} did not log "${BUILT_FROM[kind]}": not the path it was meant to time\n${output}`);
  return seconds;
}

/** DIR/base-<name>: the seed after the build's own first start and stop (its snapshot written at the stop if not before). */
async function ensureBase(dir: string, seed: string, build: Build): Promise<string> {
  const base = path.join(dir, `base-${build.name}`);
  if (existsSync(path.join(base, 'catalog-snapshot', 'base'))) return base;
  progress(`${build.name}: a first start on a copy of the seed, to write the snapshot its restarts read`);
  copyOf(seed, base);
  await timeStart(build, base, 'first');
  if (!existsSync(path.join(base, 'catalog-snapshot', 'base'))) throw new Error(`${build.name}'s first start and stop left no catalog snapshot in ${base}`);
  return base;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const seconds = (value: number) => value.toFixed(2);

async function main(argv: string[]): Promise<void> {
  const { rounds, lineItems, semanticShare, data, builds } = parseArgs(argv);
  mkdirSync(data, { recursive: true });
  const seed = await ensureSeed(data, lineItems, semanticShare);
  const bases = new Map<Build, string>();
  for (const build of builds) bases.set(build, await ensureBase(data, seed, build));
  const scratch = path.join(data, 'run');
  const load = () => os.loadavg().map((value) => value.toFixed(1)).join(' ');
  console.log(`${lineItems} line items, ${rounds} rounds, builds: ${builds.map((build) => `${build.name}=${build.entry}`).join(' ')}; load average ${load()}`);
  for (let round = 0; round < rounds; round++) {
    // Turned each round, so no build always runs right after the copy of the same one.
    const order = builds.map((_, index) => builds[(index + round) % builds.length]!);
    for (const kind of ['first', 'restart'] as const) {
      for (const build of order) {
        copyOf(kind === 'first' ? seed : bases.get(build)!, scratch);
        await sleep(SETTLE_MS);
        const time = await timeStart(build, scratch, kind);
        build.times[kind].push(time);
        console.log(`round ${round + 1} ${kind.padEnd(7)} ${build.name.padEnd(10)} ${seconds(time)} s`);
        await sleep(SETTLE_MS);
      }
    }
  }
  rmSync(scratch, { recursive: true, force: true });
  console.log(`load average ${load()}`);
  for (const build of builds) {
    for (const kind of ['first', 'restart'] as const) {
      const times = build.times[kind];
      console.log(`${build.name.padEnd(10)} ${kind.padEnd(7)} median ${seconds(median(times))} s (${times.map(seconds).join(', ')})`);
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});

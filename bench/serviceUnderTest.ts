import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Stores } from '../src/runtime.js';
import type { BenchOptions } from './benchOptions.js';
import { withStores } from './benchStores.js';
import { formatSelfTimes, topSelfTime } from './cpuProfileSummary.js';
import { assertLoopback, type LoadResult } from './loadTest.js';
import { progress } from './progress.js';
import type { HeapReport } from './heapProbe.js';
import { requestHeapReport, startService, temporaryDataDir } from './serviceProcess.js';
import { undoHttpSeeds } from './seedOverHttp.js';

export interface ServiceUnderTest<Seeded> {
  baseUrl: string;
  seeded: Seeded;
  /** The service's DATA_DIR when the bench started it; undefined with --url. */
  dataDir?: string;
  /** The service's process id when the bench started it (RSS sampling); undefined with --url. */
  pid?: number;
  /** Stops what the bench started (with --url: deletes the campaigns it seeded); returns problems worth failing the run for. */
  stop(): Promise<string[]>;
  /** With --cpu-prof, after stop: the top self-time functions of the service (in `windows` only, when given). */
  profileSummary(windows?: LoadResult['windows']): string | undefined;
  /** With settings.heapProbe: the service's memory after a full GC. */
  heapUsage(): Promise<HeapReport>;
}

export interface Seeders<Seeded> {
  /** Writes straight into the stores, before the service starts (embedded stores belong to one process). */
  stores(stores: Stores): Promise<Seeded>;
  /** Seeds a running service at --url through its admin and management APIs. */
  http?(baseUrl: string, adminToken: string): Promise<Seeded>;
}

/**
 * The service a scenario measures: by default a fresh one on a temp DATA_DIR (or settings.keptDataDir), seeded first and then
 * started (built code, LOG_LEVEL=warn, a free loopback port); with --url the running one, seeded
 * over HTTP.
 */
export async function prepareService<Seeded>(
  scenario: string,
  options: BenchOptions,
  seeders: Seeders<Seeded>,
  settings: { env?: Record<string, string>; heapProbe?: boolean; keptDataDir?: string } = {},
): Promise<ServiceUnderTest<Seeded>> {
  if (options.url) {
    assertLoopback(options.url);
    if (!seeders.http) throw new Error(`${scenario} cannot run against --url: it writes straight into the stores`);
    if (!options.adminToken) throw new Error('--url needs --admin-token to seed the service through its admin API');
    progress(`seeding the service at ${options.url} through its APIs`);
    // What the run seeds is taken out of serving when it ends (stop), when seeding fails, and on
    // Ctrl-C: a load test against a live service must not leave fake ads in its auctions.
    const onInterrupt = () => {
      progress('interrupted: deleting the seeded campaigns');
      void undoHttpSeeds().then((problems) => {
        for (const problem of problems) process.stderr.write(`${problem}\n`);
        process.exit(130);
      });
    };
    process.once('SIGINT', onInterrupt);
    const undo = async () => {
      process.off('SIGINT', onInterrupt);
      progress('deleting the seeded campaigns, revoking the bench key and publisher token');
      return undoHttpSeeds();
    };
    let seeded: Seeded;
    try {
      seeded = await seeders.http(options.url, options.adminToken);
    } catch (error) {
      for (const problem of await undo()) process.stderr.write(`${problem}\n`);
      throw error;
    }
    return {
      baseUrl: options.url,
      seeded,
      stop: undo,
      profileSummary: () => undefined,
      heapUsage: () => Promise.reject(new Error('the heap probe needs a service the bench started')),
    };
  }
  // A kept directory (report --keep-data) outlives the run; the seeder decides whether to reuse what is in it.
  const dataDir = settings.keptDataDir ?? temporaryDataDir(scenario);
  progress(`seeding ${dataDir}`);
  const seeded = await withStores(dataDir, seeders.stores);
  const profileDir = options.cpuProf ? mkdtempSync(path.join(os.tmpdir(), `adsvc-bench-profile-${scenario}-`)) : undefined;
  progress('starting the service');
  const service = await startService({ dataDir, env: settings.env, heapProbe: settings.heapProbe, cpuProfileDir: profileDir });
  let stopped = false;
  progress(`service up at ${service.baseUrl}`);
  return {
    baseUrl: service.baseUrl,
    seeded,
    dataDir,
    pid: service.child.pid,
    stop: async () => {
      const exit = await service.stop();
      stopped = true;
      return exit.code === 0 ? [] : [`the service did not exit cleanly (code ${exit.code}, signal ${exit.signal})`];
    },
    profileSummary: (windows) =>
      profileDir && stopped ? `${formatSelfTimes(topSelfTime(profileDir, 12, windows))} (profile in ${profileDir})` : undefined,
    heapUsage: () => requestHeapReport(service.child),
  };
}

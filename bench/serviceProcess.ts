import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../src/packageRoot.js';
import { freePort, startListeningProcess, type ListeningProcess } from './childProcess.js';
import type { HeapReport } from './heapProbe.js';

/** Secrets the bench gives the service it starts, so it can sign tracking links and call the admin API itself. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
export const BENCH_TRACKING_SECRET = 'bench-tracking-secret-0123456789abcdef0123456789';

export interface ServiceOptions {
  dataDir: string;
  /** Extra configuration for this scenario (TRUST_PROXY, EVENT_FLUSH_*, ...). */
  env?: Record<string, string>;
  /** Write a V8 CPU profile into this directory when the service exits. */
  cpuProfileDir?: string;
  /** Load bench/heapProbe so the bench can ask for the heap after a full GC. */
  heapProbe?: boolean;
}

export interface RunningService extends ListeningProcess {
  dataDir: string;
}

/** The built service (`npm run build`), run the way `npm start` runs it. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const nodeFlags: string[] = [];
  if (options.cpuProfileDir) nodeFlags.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
  if (options.heapProbe) nodeFlags.push('--expose-gc', '--import', builtBenchFile('heapProbe.js'));
  const running = await startListeningProcess({
    label: 'service',
    nodeFlags,
    script: path.join(packageRoot, 'dist', 'adsvc.js'),
    args: ['serve'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      TRACKING_SECRET: BENCH_TRACKING_SECRET,
      TRACKING_BASE_URL: baseUrl,
      SERVE_BASE_URL: baseUrl,
      ...options.env,
    },
    port,
    readyPath: '/healthz',
    ipc: options.heapProbe,
  });
  return { ...running, dataDir: options.dataDir };
}

export type StubKind = 'serve' | 'track';

/** The fastify stub of bench/stubServer.ts in its own process, like the service, so the two compare fairly. */
export async function startStub(kind: StubKind): Promise<ListeningProcess> {
  const port = await freePort();
  return startListeningProcess({
    label: `stub-${kind}`,
    script: builtBenchFile('stubServer.js'),
    args: [kind, String(port)],
    env: { ...process.env },
    port,
    readyPath: '/healthz',
  });
}

const temporaryDataDirs: string[] = [];

/** A fresh DATA_DIR under the system temp directory, removed by removeTemporaryDataDirs. */
export function temporaryDataDir(scenario: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), `adsvc-bench-${scenario}-`));
  temporaryDataDirs.push(directory);
  return directory;
}

/** The report scenario alone leaves gigabytes behind. */
export function removeTemporaryDataDirs(): void {
  for (const directory of temporaryDataDirs.splice(0)) rmSync(directory, { recursive: true, force: true });
}

// Child processes run compiled JavaScript: the bench itself may run under tsx, plain node cannot load .ts.
function builtBenchFile(name: string): string {
  return path.join(packageRoot, 'dist', 'bench', name);
}

/** Asks the heap probe loaded into the service for its memory after a full GC. */
export function requestHeapReport(child: ChildProcess): Promise<HeapReport> {
  return new Promise((resolve, reject) => {
    if (!child.send) return reject(new Error('the service was started without the heap probe'));
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error('the heap probe did not answer within 30 s'));
    }, 30_000);
    const onMessage = (message: unknown) => {
      if ((message as HeapReport | undefined)?.type !== 'heap') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message as HeapReport);
    };
    child.on('message', onMessage);
    child.send('heap');
  });
}

import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './freePort.js';

/**
 * A real PostgreSQL server of the test's own, which the test can stop and start (outage tests), in a
 * temporary directory, as .ci/run starts one: initdb refuses root, so as root it runs as the
 * postgres user (runuser). Not available: the caller skips with `unavailableReason`.
 */
const binDir = findBinDir();
const isRoot = process.getuid?.() === 0;

export const unavailableReason =
  binDir === undefined
    ? 'store outage tests need PostgreSQL server binaries (/usr/lib/postgresql/*/bin; apt-get install postgresql): skipped'
    : isRoot && !hasPostgresUser()
      ? 'store outage tests run the server as the postgres user, which does not exist here: skipped'
      : undefined;

export interface PostgresServer {
  url: string;
  stop(): void;
  start(): void;
  /**
   * SIGSTOP to the server and every process it started: a server that stops answering without
   * closing its connections (a frozen VM, a network cut without a reset), where stop() refuses.
   */
  freeze(): void;
  /** SIGCONT to the processes freeze() stopped. */
  thaw(): void;
  destroy(): void;
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-pg-'));
  if (isRoot) chownSync(dir, uid('postgres'), gid('postgres'));
  const port = await freePort();
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres']);
  const start = () =>
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  let frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen.splice(0)) process.kill(pid, 'SIGCONT');
  };
  start();
  run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-qc', 'CREATE DATABASE adsvc_outage']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/adsvc_outage`,
    stop,
    start,
    freeze: () => {
      const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      frozen = [postmaster, ...childrenOf(postmaster)];
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    },
    thaw,
    destroy: () => {
      thaw();
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function run(tool: string, args: string[]): void {
  const command = path.join(binDir!, tool);
  if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'ignore' });
  else execFileSync(command, args, { stdio: 'ignore' });
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)]).toString().split('\n').filter(Boolean).map(Number);
  } catch {
    // pgrep exits 1 when there is none.
    return [];
  }
}

function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => path.join(root, version, 'bin')).find((dir) => existsSync(path.join(dir, 'initdb')));
}

function hasPostgresUser(): boolean {
  try {
    uid('postgres');
    return true;
  } catch {
    return false;
  }
}

function uid(user: string): number {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}

function gid(user: string): number {
  return Number(execFileSync('id', ['-g', user]).toString().trim());
}

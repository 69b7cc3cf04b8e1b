import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

/**
 * A rollback to a release older than the database's migrations: the release refuses to start
 * before it replays the spool or writes anything. Once, an old release replayed the spool into
 * ClickHouse and then died on the newer schema; the newer release, started again, replayed the
 * same segment: every spooled event stored and billed twice.
 */

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], env: Record<string, string> = {}): { child: ReturnType<typeof spawn>; finished: Promise<Finished> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, script), ...args], {
    cwd: packageRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<Finished>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, finished };
}

async function succeeded(script: string, args: string[], env?: Record<string, string>): Promise<string> {
  const { code, stdout, stderr } = await run(script, args, env).finished;
  expect(code, stderr).toBe(0);
  return stdout;
}

/** A migrated DATA_DIR (embedded stores) whose spool holds a segment ClickHouse never got, as kill -9 leaves it. */
async function migratedWithUnsentSpool(): Promise<string> {
  const dataDir = mkdtempSync(path.join(inject('testRoot'), 'newer-migrations-'));
  await succeeded('src/main.ts', ['migrate'], { DATA_DIR: dataDir });
  const file = path.join(dataDir, 'events.json');
  writeFileSync(file, JSON.stringify(Array.from({ length: 5 }, () => sampleEvent())));
  const { child, finished } = run('test/helpers/spoolThenKilledChild.ts', [dataDir, file]);
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('spooled 5\n')) resolve();
    });
    void finished.then(({ stderr }) => reject(new Error(`the spooling process exited: ${output} ${stderr}`)));
  });
  child.kill('SIGKILL');
  expect((await finished).signal).toBe('SIGKILL');
  return dataDir;
}

function spool(dataDir: string): Record<string, string> {
  const directory = path.join(dataDir, 'spool');
  return Object.fromEntries(readdirSync(directory).filter((name) => name.endsWith('.jsonl')).map((name) => [name, readFileSync(path.join(directory, name), 'utf8')]));
}

const storedEvents = async (dataDir: string) => Number(/^events (\d+)$/m.exec(await succeeded('test/helpers/migrationRecordChild.ts', [dataDir, 'count']))![1]);

describe('a release started on a database a newer release migrated', () => {
  it.each([
    ['postgres', '9998_from_a_newer_release.sql', 'the database was migrated by a newer release (9998_from_a_newer_release); this release knows up to 0'],
    ['clickhouse', '9999_from_a_newer_release.sql', 'ClickHouse was migrated by a newer release (clickhouse/9999_from_a_newer_release); this release knows up to clickhouse/0'],
  ])('refuses with one line (%s), before it replays the spool or writes anything', async (store, name, line) => {
    const dataDir = await migratedWithUnsentSpool();
    const spooled = spool(dataDir);
    expect(Object.keys(spooled).length).toBeGreaterThan(0);
    await succeeded('test/helpers/migrationRecordChild.ts', [dataDir, 'record', store, name]);
    const before = await storedEvents(dataDir);

    const { code, stderr } = await run('src/main.ts', ['serve'], { DATA_DIR: dataDir, PORT: '0' }).finished;
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(`adsvc: ${line}`);
    expect(stderr).toContain(': start the newer release or restore a backup');
    expect(spool(dataDir)).toEqual(spooled);
    expect(await storedEvents(dataDir)).toBe(before);
  });
});

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Socket } from 'node:net';
import type { ClickHouseClient } from '@clickhouse/client';
import { WRITE_CALLS, aroundClientCalls } from './clickhouseCalls.js';

/**
 * A shell kept for the process's life that runs `sync --file-system` (syncfs(2); Node has no
 * binding of it) for each directory written to its stdin, answering a line each, in order. Starting
 * a child per sync forked this process every time, on the main thread, for a time that grows with
 * its memory (48 ms at 546 MB of RSS, 97 ms at 1.55 GB: rev40 R3); the shell forks only itself.
 */
let syncer: { child: ChildProcessWithoutNullStreams; waiting: Array<(error?: Error) => void> } | undefined;

function startSyncer(): NonNullable<typeof syncer> {
  const child = spawn('sh', ['-c', 'while IFS= read -r d; do if sync --file-system -- "$d" 2>/dev/null; then echo ok; else echo failed; fi; done'], { stdio: 'pipe' });
  const started = { child, waiting: [] as Array<(error?: Error) => void> };
  createInterface({ input: child.stdout }).on('line', (line) => {
    started.waiting.shift()?.(line === 'ok' ? undefined : new Error('sync --file-system failed'));
    if (started.waiting.length === 0) holdProcess(child, false);
  });
  const gone = (error?: Error) => {
    if (syncer === started) syncer = undefined;
    for (const settle of started.waiting.splice(0)) settle(error ?? new Error('the sync process ended'));
  };
  child.on('error', gone);
  child.on('exit', () => gone());
  child.stdin.on('error', () => undefined);
  holdProcess(child, false);
  return started;
}

/** The shell waits on its stdin for good: it keeps the process alive only while a sync is awaited. */
function holdProcess(child: ChildProcessWithoutNullStreams, hold: boolean): void {
  if (hold) child.ref();
  else child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as Socket)[hold ? 'ref' : 'unref']();
}

/** Syncs the file system holding `directory`: everything written there so far is on the disk once it resolves. */
export function syncFileSystemOf(directory: string): Promise<void> {
  if (directory.includes('\n')) return Promise.reject(new Error(`cannot sync a path with a line break: ${directory}`));
  syncer ??= startSyncer();
  const { child, waiting } = syncer;
  return new Promise((resolve, reject) => {
    waiting.push((error) => (error ? reject(error) : resolve()));
    holdProcess(child, true);
    child.stdin.write(`${directory}\n`);
  });
}

/**
 * Embedded ClickHouse whose writes must survive a power loss (EVENT_SPOOL_FSYNC): each write
 * (WRITE_CALLS: command, insert) returns only once the file system holding the engine's files is
 * synced (syncFileSystemOf). The engine
 * writes its parts through the page cache without fsync, and the pipeline deletes a spooled
 * segment once its insert returns: without this, a power loss within the kernel's writeback delay
 * (30 s) lost events that had been answered 2xx, fsynced in the spool and then deleted from it
 * (try40 F5: 600 of 600). One sync covers the parts, the views' targets and the deduplication log
 * at once; at one flush a second its cost is small beside the spool's fsync of every event. A
 * failed sync fails the write, so its segment stays and is sent again (the token deduplicates).
 */
export function withDurableWrites(client: ClickHouseClient, directory: string): ClickHouseClient {
  return aroundClientCalls(client, WRITE_CALLS, async (write) => {
    const result = await write();
    await syncFileSystemOf(directory);
    return result;
  });
}

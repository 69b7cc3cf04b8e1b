import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ClickHouseClient } from '@clickhouse/client';

const run = promisify(execFile);

/**
 * Syncs the file system holding `directory` (syncfs(2), through coreutils' `sync --file-system`:
 * Node has no binding of it): everything written there so far is on the disk once it resolves.
 */
export async function syncFileSystemOf(directory: string): Promise<void> {
  await run('sync', ['--file-system', directory]);
}

/**
 * Embedded ClickHouse whose writes must survive a power loss (EVENT_SPOOL_FSYNC): each write
 * (command, insert, exec) returns only once the file system holding the engine's files is synced
 * (syncFileSystemOf). The engine
 * writes its parts through the page cache without fsync, and the pipeline deletes a spooled
 * segment once its insert returns: without this, a power loss within the kernel's writeback delay
 * (30 s) lost events that had been answered 2xx, fsynced in the spool and then deleted from it
 * (try40 F5: 600 of 600). One sync covers the parts, the views' targets and the deduplication log
 * at once; at one flush a second its cost is small beside the spool's fsync of every event. A
 * failed sync fails the write, so its segment stays and is sent again (the token deduplicates).
 */
export function withDurableWrites(client: ClickHouseClient, directory: string): ClickHouseClient {
  const writes = new Map<PropertyKey, unknown>(
    (['command', 'insert', 'exec'] as const).map((name) => {
      const write = client[name].bind(client) as (params: object) => Promise<unknown>;
      return [
        name,
        async (params: object) => {
          const result = await write(params);
          await syncFileSystemOf(directory);
          return result;
        },
      ];
    }),
  );
  return new Proxy(client, {
    get: (target, property, receiver) => writes.get(property) ?? Reflect.get(target, property, receiver),
  });
}

import type { ClickHouseClient } from '@clickhouse/client';

/** The client's methods that send a statement to ClickHouse. */
type ClientCall = 'query' | 'command' | 'insert' | 'exec' | 'ping';

/**
 * The writes: every write of ours is a `command` (and migrate's one `insert`). Not `exec`: it
 * resolves with the answer's stream still to be read (on a server, before the statement has run to
 * its end), so whatever runs after it promises nothing about the write (rev40 R10); nothing of ours
 * writes through it.
 */
export const WRITE_CALLS = ['command', 'insert'] as const satisfies readonly ClientCall[];

/**
 * The client with each of `names` run through `around`, which makes the call (`call()`) and acts
 * around it; every other property as it was. The one home of the store's wrappers of the client:
 * sorted failures, durable writes, written event days, the embedded close's wait.
 */
export function aroundClientCalls(
  client: ClickHouseClient,
  names: readonly ClientCall[],
  around: (call: () => Promise<unknown>, params: object) => Promise<unknown>,
): ClickHouseClient {
  const wrapped = new Map<PropertyKey, unknown>(
    names.map((name) => {
      const call = client[name].bind(client) as (params: object) => Promise<unknown>;
      return [name, (params: object) => around(() => call(params), params)];
    }),
  );
  return new Proxy(client, {
    get: (target, property, receiver) => wrapped.get(property) ?? Reflect.get(target, property, receiver),
  });
}

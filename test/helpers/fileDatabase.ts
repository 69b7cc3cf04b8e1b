import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * On a PostgreSQL server (ADSVC_TEST_DATABASE_URL), every test file gets a database of its own on
 * that server, as every file gets its own PGlite on the embedded pass. Serving reads one catalog
 * per database: on a shared one, a line item another file leaves active without targeting competes
 * on every placement of every file (a budgets test once got another file's line item where it
 * expected its own fallback), and another file's prune of the change log rebuilds this file's index.
 */

/** The databases of one run share a name prefix, so the run's teardown can drop them all. */
export function runDatabasePrefix(baseUrl: string): string {
  return `${new URL(baseUrl).pathname.slice(1)}_${randomBytes(4).toString('hex')}`;
}

/** Creates an empty database named after the run's prefix on the base URL's server; returns its URL. */
export async function createFileDatabase(baseUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await onServer(baseUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops every database of the run, closing what still holds one open. */
export async function dropRunDatabases(baseUrl: string, prefix: string): Promise<void> {
  await onServer(baseUrl, async (client) => {
    const { rows } = await client.query<{ name: string }>(`SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1)`, [`${prefix}_`]);
    for (const { name } of rows) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

async function onServer<T>(baseUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

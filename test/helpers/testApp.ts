import { cpSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { AppDeps, Secrets } from '../../src/featureDeps.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openStores, type Stores } from '../../src/runtime.js';

/**
 * Which Postgres the suite runs on: embedded PGlite by default; a real server when
 * ADSVC_TEST_DATABASE_URL is set (.ci/run starts one and runs there again the test files that read
 * this, directly or through a helper: scripts/postgresServerTests.ts).
 * ClickHouse is embedded chdb, one data directory per test file (process), unless
 * ADSVC_TEST_CLICKHOUSE_URL names a server (npm run test:containers).
 */
export const testDatabaseUrl = process.env.ADSVC_TEST_DATABASE_URL || undefined;
/** A ClickHouse server for the suite (npm run test:containers); otherwise embedded chdb. */
const testClickHouse = process.env.ADSVC_TEST_CLICKHOUSE_URL
  ? {
      CLICKHOUSE_URL: process.env.ADSVC_TEST_CLICKHOUSE_URL,
      CLICKHOUSE_USER: process.env.ADSVC_TEST_CLICKHOUSE_USER ?? 'default',
      CLICKHOUSE_PASSWORD: process.env.ADSVC_TEST_CLICKHOUSE_PASSWORD ?? '',
      CLICKHOUSE_DATABASE: 'adsvc_test',
    }
  : {};

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  stores: Stores;
  secrets: Secrets;
  dataDir: string;
  /** app.inject with the admin token set. */
  admin(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * What the run's global setup provides (globalSetup.ts). vitest is imported when first asked, not
 * with this module: a script outside vitest (bench/latePostback.ts) builds its app with
 * startTestAppOn and the factories, and importing vitest there throws.
 */
async function provided(key: 'testRoot' | 'pgliteTemplate'): Promise<string> {
  const { inject } = await import('vitest');
  return inject(key);
}

let stores: Stores | undefined;
let storesDataDir: string | undefined;

/** One pair of stores per test file (process); they outlive app restarts within the file. */
export async function testStores(): Promise<{ stores: Stores; dataDir: string }> {
  if (!stores) {
    storesDataDir = mkdtempSync(path.join(await provided('testRoot'), 'data-'));
    if (!testDatabaseUrl) cpSync(await provided('pgliteTemplate'), path.join(storesDataDir, 'postgres'), { recursive: true });
    stores = await openStores(testConfig(storesDataDir));
  }
  return { stores, dataDir: storesDataDir! };
}

export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATA_DIR: dataDir,
    ...(testDatabaseUrl ? { DATABASE_URL: testDatabaseUrl } : {}),
    ...testClickHouse,
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    TRACKING_SECRET: 'test-tracking-secret-0123456789abcdef0123456789',
    TRACKING_BASE_URL: 'http://track.test',
    SERVE_BASE_URL: 'http://serve.test',
    LOG_LEVEL: 'silent',
    INDEX_REFRESH_MS: '100',
    PACING_SYNC_MS: '200',
    EVENT_FLUSH_INTERVAL_MS: '100',
    ...env,
  });
}

/** Builds the app on this file's stores; env overrides the test configuration. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestContext> {
  const { stores: opened, dataDir } = await testStores();
  return startTestAppOn(opened, dataDir, env);
}

/** Builds the app on stores the test opened itself (a Postgres server it stops and starts, say). */
export async function startTestAppOn(
  opened: Stores,
  dataDir: string,
  env: Record<string, string> = {},
  deps: Pick<AppDeps, 'embeddedClickHouseClaim' | 'logger'> = {},
): Promise<TestContext> {
  const config = testConfig(dataDir, env);
  const secrets = { adminToken: config.ADMIN_TOKEN!, trackingSecret: config.TRACKING_SECRET! };
  const app = await buildApp({ config, db: opened.db, ch: opened.ch, secrets, ...deps });
  await app.ready();
  return {
    app,
    config,
    stores: opened,
    secrets,
    dataDir,
    admin: (options) =>
      app.inject({ ...options, headers: { authorization: `Bearer ${secrets.adminToken}`, ...(options.headers ?? {}) } }),
    close: () => app.close(),
  };
}

/**
 * Another instance on the same stores with a DATA_DIR of its own, as on servers: an event spool
 * belongs to one pipeline, so a second app on the first one's DATA_DIR refuses to start.
 */
export async function startAnotherInstance(on: TestContext, env: Record<string, string> = {}): Promise<TestContext> {
  return startTestAppOn(on.stores, mkdtempSync(path.join(await provided('testRoot'), 'instance-')), env);
}

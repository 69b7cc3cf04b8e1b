import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createDatabaseDdl } from '../../src/store/clickhouse.js';
import { migrationsTableDdl, readClickHouseMigrations } from '../../src/store/migrate.js';
import { ClusterDdlError, clusterStatements, type ClusterTables } from '../../src/store/clusterDdl.js';
import { loadConfig } from '../../src/config.js';
import { packageRoot } from '../../src/packageRoot.js';
import { embeddedClickHouseForTest } from '../helpers/embeddedClickHouseForTest.js';

/**
 * No ClickHouse server or Keeper runs here, so the cluster DDL is checked by ClickHouse's own parser
 * (formatQuery in embedded chdb: it parses the statement and throws on a syntax error), and its shape
 * against the single-server schema the same migrations create in chdb (system.tables, system.columns).
 */
const cluster = { name: 'adsvc_cluster', database: 'adsvc' };
const SHARD_PATH = "'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'";

const { ch } = embeddedClickHouseForTest('cluster-ddl-');
/** The single-server tables (views excluded), their engines and whether they have a campaign_id column. */
let tables: Array<{ name: string; engine: string; hasCampaign: boolean }>;
let viewCount: number;
/** Every cluster statement of every migration, as ClickHouse's parser formats it. */
let formatted: string[];

async function format(sql: string): Promise<string> {
  const result = await ch.client.query({ query: 'SELECT formatQuery({sql:String}) AS formatted', query_params: { sql }, format: 'JSONEachRow' });
  return ((await result.json()) as Array<{ formatted: string }>)[0]!.formatted;
}

function created(name: string): string | undefined {
  return formatted.find((statement) => statement.startsWith(`CREATE TABLE IF NOT EXISTS ${name} ON CLUSTER adsvc_cluster`));
}

beforeAll(async () => {
  const result = await ch.client.query({
    query: `SELECT name, engine, toBool(countIf(c.name = 'campaign_id')) AS has_campaign
            FROM system.tables AS t LEFT JOIN system.columns AS c ON c.database = t.database AND c.table = t.name
            WHERE t.database = currentDatabase() AND t.name != 'schema_migrations'
            GROUP BY name, engine ORDER BY name`,
    format: 'JSONEachRow',
  });
  const rows = (await result.json()) as Array<{ name: string; engine: string; has_campaign: boolean }>;
  tables = rows.filter((row) => row.engine !== 'MaterializedView').map((row) => ({ name: row.name, engine: row.engine, hasCampaign: row.has_campaign }));
  viewCount = rows.length - tables.length;
  const files = await readClickHouseMigrations(path.join(packageRoot, 'clickhouse'), cluster);
  formatted = [];
  for (const statement of files.flatMap((file) => file.statements)) formatted.push(await format(statement));
});

describe('ClickHouse migrations as cluster DDL (CLICKHOUSE_CLUSTER)', () => {
  it('is checked by a parser that rejects a broken statement and reads ON CLUSTER and engine arguments', async () => {
    await expect(format(`CREATE TABLE t ON CLUSTER c (a UInt8) ENGINE = ReplicatedMergeTree(${SHARD_PATH} ORDER BY a`)).rejects.toThrow(/Syntax error/);
    await expect(format('ALTER TABLE t ON CLUSTER ADD COLUMN b UInt8')).rejects.toThrow(/Syntax error/);
    expect(await format(`CREATE TABLE t ON CLUSTER c (a UInt8) ENGINE = ReplicatedMergeTree(${SHARD_PATH}) ORDER BY a`)).toMatch(
      /^CREATE TABLE t ON CLUSTER c\n[\s\S]*ENGINE = ReplicatedMergeTree\('\/clickhouse\/tables\/\{shard\}\/\{database\}\/\{table\}', '\{replica\}'\)/,
    );
  });

  it('covers every table of the single-server schema', () => {
    expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['events_v1', 'daily_stats_v1', 'campaign_dimension_daily_v1', 'reach_blocks_v1']));
    expect(formatted.length).toBeGreaterThan(tables.length * 2);
  });

  it('runs every DDL statement ON CLUSTER; the only other statements are backfills into Distributed tables', () => {
    for (const statement of formatted) {
      const ddl = /^(CREATE TABLE IF NOT EXISTS|CREATE MATERIALIZED VIEW IF NOT EXISTS|ALTER TABLE|DROP VIEW IF EXISTS) (\w+) ON CLUSTER adsvc_cluster\b/.exec(statement);
      if (ddl) continue;
      const insert = /^INSERT INTO (\w+)/.exec(statement);
      expect(insert, statement).not.toBeNull();
      expect(created(insert![1]!), statement).toMatch(/ENGINE = Distributed/);
    }
  });

  it('makes every MergeTree table Replicated under <name>_local, on the shard path; Null stays Null', () => {
    for (const table of tables) {
      const local = created(`${table.name}_local`);
      expect(local, table.name).toBeDefined();
      // The formatter quotes Null, a keyword, as an identifier.
      const engine = table.engine === 'Null' ? '`Null`' : `Replicated${table.engine}(${SHARD_PATH}`;
      expect(table.engine === 'Null' || table.engine.endsWith('MergeTree'), table.engine).toBe(true);
      expect(local).toContain(`ENGINE = ${engine}`);
      // The single-server engine's own arguments, if any, follow the shard path.
      if (table.engine !== 'Null') expect(local!.charAt(local!.indexOf(engine) + engine.length), table.name).toMatch(/^[),]$/);
      // The same deduplication window, not shortened by the replicated default of an hour.
      expect(local).not.toContain('non_replicated_deduplication_window');
      if (/deduplication_window/.test(local!)) expect(local).toMatch(/replicated_deduplication_window = \d+, replicated_deduplication_window_seconds = 604800/);
    }
    expect(created('events_v1_local')).toContain('replicated_deduplication_window = 10000, replicated_deduplication_window_seconds = 604800');
    // clickhouse/0014: the version column of a ReplacingMergeTree stays its argument.
    expect(created('reach_today_windows_v1_local')).toContain(`ENGINE = ReplicatedReplacingMergeTree(${SHARD_PATH}, impressions)`);
    for (const statement of formatted) {
      for (const [, engine] of statement.matchAll(/ENGINE = ([\w`]+)/g)) expect(engine).toMatch(/^(Replicated\w*MergeTree|Distributed|`Null`)$/);
    }
  });

  it('gives every table a Distributed table under its own name, sharded by campaign wherever it has a campaign_id', () => {
    for (const table of tables) {
      const distributed = created(table.name);
      const key = table.hasCampaign ? 'cityHash64\\(campaign_id\\)' : 'cityHash64\\(\\w+\\)';
      expect(distributed, table.name).toMatch(
        new RegExp(`AS ${table.name}_local\\nENGINE = Distributed\\('adsvc_cluster', 'adsvc', '${table.name}_local', ${key}\\)$`),
      );
    }
    expect(tables.filter((table) => table.hasCampaign).map((table) => table.name)).toEqual(
      expect.arrayContaining(['events_v1', 'daily_stats_v1', 'campaign_daily_stats_v1', 'campaign_hourly_stats_v1', 'campaign_dimension_daily_v1', 'reach_blocks_v1']),
    );
  });

  it('leaves the app naming only the Distributed tables', () => {
    const names = new Set(tables.map((table) => table.name));
    const used = new Set<string>();
    const sources = readdirSync(path.join(packageRoot, 'src'), { recursive: true, encoding: 'utf8' });
    // clusterDdl.ts is where the shard tables are named; nothing else may reach past the Distributed ones.
    for (const file of sources.filter((name) => name.endsWith('.ts') && name !== path.join('store', 'clusterDdl.ts'))) {
      const source = readFileSync(path.join(packageRoot, 'src', file), 'utf8');
      expect(source, file).not.toMatch(/\b\w+_v\d+_local\b/);
      for (const [name] of source.matchAll(/\b[a-z_]+_v\d+\b/g)) if (names.has(name)) used.add(name);
    }
    expect([...used]).toEqual(expect.arrayContaining(['events_v1', 'placement_serve_counts_v1', 'reach_blocks_v1', 'line_item_spend_v1']));
    for (const name of used) expect(created(name), name).toMatch(/ENGINE = Distributed/);
  });

  it('attaches every view to the shard tables, so rows land next to the events that made them', () => {
    const views = formatted.filter((statement) => statement.startsWith('CREATE MATERIALIZED VIEW'));
    // A view a later migration replaced is created and then dropped, on the cluster as on one server.
    const dropped = formatted.flatMap((statement) => /^DROP VIEW IF EXISTS (\w+) ON CLUSTER/.exec(statement)?.[1] ?? []);
    for (const name of dropped) expect(views.some((view) => view.startsWith(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${name} ON CLUSTER`)), name).toBe(true);
    expect(views).toHaveLength(viewCount + dropped.length);
    for (const view of views) {
      const referenced = [...view.matchAll(/\b(?<!ARRAY )(?:FROM|JOIN|TO) (\w+)/g)].map((match) => match[1]!);
      expect(referenced.length, view).toBeGreaterThanOrEqual(2);
      for (const name of referenced) expect(tables.map((table) => `${table.name}_local`), view).toContain(name);
    }
  });

  it('alters the columns of a shard table and of its Distributed table alike', () => {
    const alters = formatted.filter((statement) => statement.startsWith('ALTER TABLE'));
    expect(alters.length).toBeGreaterThan(0);
    for (const alter of alters.filter((statement) => /^ALTER TABLE \w+_local /.test(statement))) {
      // The shard's table waits for every replica before the next statement (a view reading the new column).
      expect(alter).toMatch(/\sSETTINGS alter_sync = 2$/);
      const distributed = alter.replace(/^ALTER TABLE (\w+)_local /, 'ALTER TABLE $1 ').replace(/\sSETTINGS alter_sync = 2$/, '');
      // Table settings (clickhouse/0011's merges) belong to the shard's MergeTree table only.
      if (/\(MODIFY SETTING /.test(alter)) expect(alters).not.toContain(distributed);
      else expect(alters).toContain(distributed);
    }
  });

  it('creates the database on every server of the cluster', async () => {
    expect(await format(createDatabaseDdl({ database: 'adsvc', cluster: 'adsvc_cluster' }))).toBe('CREATE DATABASE IF NOT EXISTS adsvc ON CLUSTER adsvc_cluster');
  });

  it('keeps the migrations table as one replicated table shared by every shard', async () => {
    const ddl = await format(migrationsTableDdl(cluster));
    expect(ddl).toMatch(/^CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER adsvc_cluster\n/);
    expect(ddl).toContain("ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all-shards/{database}/{table}', '{shard}-{replica}')");
  });

  it('refuses what no rule covers instead of passing it through', () => {
    const known = (): ClusterTables => new Set(['events_v1']);
    const refused = [
      'DROP TABLE events_v1',
      'CREATE TABLE IF NOT EXISTS buffer_v1 (campaign_id UUID) ENGINE = Memory',
      'CREATE TABLE IF NOT EXISTS keyed_v1 (serve_key String) ENGINE = MergeTree ORDER BY serve_key',
      'CREATE MATERIALIZED VIEW IF NOT EXISTS v TO missing_v1 AS SELECT campaign_id FROM events_v1',
      'INSERT INTO missing_v1 SELECT campaign_id FROM events_v1',
      "ALTER TABLE events_v1 ADD COLUMN x String, MODIFY TTL toDateTime(event_time) + INTERVAL 1 DAY",
    ];
    for (const statement of refused) expect(() => clusterStatements([statement], cluster, known()), statement).toThrow(ClusterDdlError);
  });
});

describe('deploy/docker-compose.cluster.yml', () => {
  const deploy = path.join(packageRoot, 'deploy');
  const compose = parse(readFileSync(path.join(deploy, 'docker-compose.cluster.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { image?: string; volumes?: string[]; environment?: Record<string, string | number> }>;
  };

  it('starts one keeper and two ClickHouse servers, each with the files it mounts', () => {
    expect(compose.services.keeper!.image).toMatch(/^clickhouse\/clickhouse-keeper:/);
    const servers = Object.entries(compose.services).filter(([, service]) => service.image?.startsWith('clickhouse/clickhouse-server:'));
    expect(servers.map(([name]) => name)).toEqual(['clickhouse-1', 'clickhouse-2']);
    const shards = new Set<string>();
    for (const [, service] of [...servers, ['keeper', compose.services.keeper!] as const]) {
      for (const volume of service.volumes ?? []) {
        const [source] = volume.split(':');
        if (!source!.startsWith('.')) continue;
        const file = path.join(deploy, source!);
        expect(existsSync(file), file).toBe(true);
        const shard = /<shard>(\w+)<\/shard>/.exec(readFileSync(file, 'utf8'));
        if (shard) shards.add(shard[1]!);
      }
    }
    expect(shards.size).toBe(2);
  });

  it('points adsvc at the cluster its servers define, with a configuration adsvc accepts', () => {
    const environment = Object.fromEntries(
      Object.entries(compose.services.adsvc!.environment!).map(([name, value]) => [name, String(value).replace(/^\$\{\w+:-(.*)\}$/, '$1')]),
    );
    const config = loadConfig(environment);
    expect(config.CLICKHOUSE_CLUSTER).toBe('adsvc_cluster');
    const servers = readFileSync(path.join(deploy, 'clickhouse-cluster', 'cluster.xml'), 'utf8');
    const definition = new RegExp(`<remote_servers>\\s*<${config.CLICKHOUSE_CLUSTER}>([\\s\\S]*)</${config.CLICKHOUSE_CLUSTER}>`).exec(servers);
    expect(definition).not.toBeNull();
    expect(definition![1]!.match(/<shard>/g)).toHaveLength(2);
    expect(new URL(config.CLICKHOUSE_URL!).hostname).toBe('clickhouse-1');
  });
});

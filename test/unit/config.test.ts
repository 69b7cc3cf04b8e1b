import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration from the environment', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      DATA_DIR: './data',
      CLICKHOUSE_DATABASE: 'adsvc',
      TRACKING_BASE_URL: 'http://localhost:8080',
      SERVE_BASE_URL: 'http://localhost:8080',
      TRUST_PROXY: false,
      EVENT_FLUSH_INTERVAL_MS: 1000,
      ATTRIBUTION_WINDOW_DAYS: 30,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.CLICKHOUSE_URL).toBeUndefined();
  });

  it('derives the link bases from PORT and strips trailing slashes from given ones', () => {
    expect(loadConfig({ PORT: '9000' }).TRACKING_BASE_URL).toBe('http://localhost:9000');
    expect(loadConfig({ TRACKING_BASE_URL: 'https://t.example.com/' }).TRACKING_BASE_URL).toBe('https://t.example.com');
  });

  it('takes a link base only as an http or https URL without a query or fragment (links append their path to it)', () => {
    expect(loadConfig({ TRACKING_BASE_URL: 'https://ads.example.com/track/' }).TRACKING_BASE_URL).toBe('https://ads.example.com/track');
    expect(loadConfig({ SERVE_BASE_URL: 'http://10.0.0.5:8080' }).SERVE_BASE_URL).toBe('http://10.0.0.5:8080');
    // An ftp base, a query or a fragment put every token where no browser sends it: nothing was ever recorded.
    for (const name of ['TRACKING_BASE_URL', 'SERVE_BASE_URL']) {
      for (const base of ['ftp://t.example.com', 'javascript:alert1', 'https://t.example.com/x?y=1', 'https://t.example.com/x?', 'https://t.example.com/#frag']) {
        expect(() => loadConfig({ [name]: base }), `${name}=${base}`).toThrow(new RegExp(`^invalid configuration: ${name}: must be an http or https URL without a query or fragment$`));
      }
    }
  });

  it('takes every other number in decimal digits only: an empty value does not turn a limit off', () => {
    expect(loadConfig({ IMPRESSION_VELOCITY_10S: '45', PLACEMENT_CLICK_THROUGH_MAX: '0.25' })).toMatchObject({ IMPRESSION_VELOCITY_10S: 45, PLACEMENT_CLICK_THROUGH_MAX: 0.25 });
    // '' and ' ' were 0 (no impression velocity limit), 1e3 1000 and 0x10 16.
    for (const value of ['', ' ', '1e3', '0x10', '-1', '4.5', ' 30']) {
      expect(() => loadConfig({ IMPRESSION_VELOCITY_10S: value }), JSON.stringify(value)).toThrow(/^invalid configuration: IMPRESSION_VELOCITY_10S: must be a whole number in decimal digits$/);
    }
    for (const value of ['', '.5', '2e-1']) {
      expect(() => loadConfig({ PLACEMENT_CLICK_THROUGH_MAX: value }), JSON.stringify(value)).toThrow(/^invalid configuration: PLACEMENT_CLICK_THROUGH_MAX: must be a number in decimal digits$/);
    }
  });

  it('takes PORT as decimal digits, 0 to 65535, and nothing else', () => {
    for (const port of ['0', '80', '08080', '65535']) expect(loadConfig({ PORT: port }).PORT, port).toBe(Number(port));
    // '' was a random port, 0x1F90 8080 and 1e3 1000.
    for (const port of ['', ' ', '0x1F90', '1e3', '80.0', '-1', '+80', ' 80', '65536', '123456']) {
      expect(() => loadConfig({ PORT: port }), JSON.stringify(port)).toThrow(/^invalid configuration: PORT: must be a decimal port number, 0 to 65535$/);
    }
  });

  it('refuses a DATA_DIR embedded ClickHouse would read as a file pattern, before anything is opened', () => {
    for (const dataDir of ['/srv/ads[1]', '/srv/ads{a,b}', '/srv/ads*', '/srv/ads?', '/srv/ads\\x']) {
      expect(() => loadConfig({ DATA_DIR: dataDir }), dataDir).toThrow(/DATA_DIR: holds a character embedded ClickHouse reads as a file pattern/);
    }
    // A ClickHouse server never reads DATA_DIR; spaces, quotes and pluses are fine for chdb.
    expect(loadConfig({ DATA_DIR: '/srv/ads[1]', CLICKHOUSE_URL: 'http://ch:8123' }).DATA_DIR).toBe('/srv/ads[1]');
    expect(loadConfig({ DATA_DIR: "/srv/o'brien data +1" }).DATA_DIR).toBe("/srv/o'brien data +1");
  });

  it('signs tracking links in format 2 unless TRACKING_TOKEN_FORMAT says 1, and refuses any other format', () => {
    expect(loadConfig({}).TRACKING_TOKEN_FORMAT).toBe(2);
    expect(loadConfig({ TRACKING_TOKEN_FORMAT: '1' }).TRACKING_TOKEN_FORMAT).toBe(1);
    for (const format of ['0', '3', '1.5']) expect(() => loadConfig({ TRACKING_TOKEN_FORMAT: format }), format).toThrow(/TRACKING_TOKEN_FORMAT: must be 1 or 2/);
    expect(() => loadConfig({ TRACKING_TOKEN_FORMAT: 'json' })).toThrow(/TRACKING_TOKEN_FORMAT/);
  });

  it('treats empty variables as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', CLICKHOUSE_URL: '  ' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.CLICKHOUSE_URL).toBeUndefined();
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'not a url'],
    ['CLICKHOUSE_DATABASE', 'adsvc; DROP'],
    ['ADMIN_TOKEN', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['EVENT_SPOOL_FSYNC', 'maybe'],
    ['CLICKHOUSE_CLUSTER', 'two shards'],
  ])('stops with a message naming %s when it is %j', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('takes CLICKHOUSE_CLUSTER only with a ClickHouse server and without a Replicated database', () => {
    expect(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'adsvc_cluster' }).CLICKHOUSE_CLUSTER).toBe('adsvc_cluster');
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'adsvc_cluster' })).toThrow(/CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL/);
    expect(() => loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'adsvc_cluster', CLICKHOUSE_REPLICATED: 'true' })).toThrow(
      /CLICKHOUSE_CLUSTER: cannot be combined with CLICKHOUSE_REPLICATED/,
    );
  });

  it('refuses to prune the catalog change log less than twice as long as the index takes between reads', () => {
    const server = { DATABASE_URL: 'postgres://db/adsvc' };
    // On a Postgres server the index reads every INDEX_REFRESH_MS.
    expect(loadConfig({ ...server, INDEX_REFRESH_MS: '250', INDEX_CHANGES_PRUNE_MS: '500' }).INDEX_CHANGES_PRUNE_MS).toBe(500);
    expect(() => loadConfig({ ...server, INDEX_REFRESH_MS: '250', INDEX_CHANGES_PRUNE_MS: '499' })).toThrow(
      /INDEX_CHANGES_PRUNE_MS: must be at least twice INDEX_REFRESH_MS \(500 ms or more\): .* rebuilds it at every prune/,
    );
    expect(() => loadConfig({ ...server, INDEX_REFRESH_MS: '3600000' })).toThrow(/INDEX_CHANGES_PRUNE_MS: must be at least twice INDEX_REFRESH_MS \(7200000 ms/);
    // On embedded PGlite it reads at each catalog commit and otherwise every INDEX_REFRESH_NOTIFIED_MS.
    expect(() => loadConfig({ INDEX_CHANGES_PRUNE_MS: '1000' })).toThrow(/INDEX_CHANGES_PRUNE_MS: must be at least twice INDEX_REFRESH_NOTIFIED_MS \(10000 ms/);
    expect(loadConfig({ INDEX_CHANGES_PRUNE_MS: '1000', INDEX_REFRESH_NOTIFIED_MS: '500', INDEX_REFRESH_MS: '3600000' }).INDEX_CHANGES_PRUNE_MS).toBe(1000);
  });

  it.each([
    [undefined, false],
    ['true', true],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
  ])('parses TRUST_PROXY %j for fastify', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each(['banana', 'constructor', '10.0.0.0/0', '10.0.0.0/33', '10.0.0.1, 10.0.0.0/255.0.255.0', '::1/129', '1.2.3.4/8/8'])(
    'refuses TRUST_PROXY %j naming the variable, before anything starts',
    (value) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/^invalid configuration: TRUST_PROXY: ".*": not true, false, a hop count/);
    },
  );

  it('takes TRUST_PROXY addresses, CIDRs, netmasks and the named ranges', () => {
    const value = '10.0.0.1, 10.0.0.0/8, 192.168.0.0/255.255.0.0, 2001:db8::/32, ::ffff:10.0.0.1, loopback, linklocal, uniquelocal';
    expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY).toHaveLength(8);
  });
});

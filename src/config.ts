import path from 'node:path';
import { z } from 'zod';
import { isTrustListEntry } from './http/proxyTrust.js';

/**
 * The service's whole configuration, read from the environment once at start.
 * Nothing else in src/ reads process.env: the parsed Config is passed in.
 */
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const optionalUrl = optionalString.pipe(z.url().optional());

/**
 * A base the service appends link paths to (`<base>/v1/t/i/<token>`): another scheme, a query or
 * a fragment would put every token where no browser sends it, and nothing would ever be recorded.
 */
const LINK_BASE_PROBLEM = 'must be an http or https URL without a query or fragment';
const optionalLinkBase = optionalString.pipe(
  z
    .url({ protocol: /^https?$/, error: LINK_BASE_PROBLEM })
    .refine((value) => !/[?#]/.test(value), LINK_BASE_PROBLEM)
    .optional(),
);

/**
 * Numbers in decimal digits only (a fraction where the setting takes one): z.coerce.number would
 * read '' and ' ' as 0 (an empty IMPRESSION_VELOCITY_10S in a compose file would turn that limit
 * off), 1e3 as 1000 and 0x10 as 16.
 */
const wholeNumber = z.string().regex(/^\d+$/, 'must be a whole number in decimal digits').transform(Number);
const decimalNumber = z.string().regex(/^\d+(\.\d+)?$/, 'must be a number in decimal digits').transform(Number);

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/**
 * Embedded chdb reads spooled event bodies from DATA_DIR/spool with its file() reader, which takes
 * these characters for a glob (a backslash for their escape): a path holding one names other files
 * or none, and every segment with billable events could never be written. Quotes and spaces are fine.
 */
const FILE_PATTERN_CHARACTERS = /[*?{}[\]\\]/;

const configSchema = z
  .object({
    /** Decimal digits only: z.coerce would take '' for 0 (a random port), 0x1F90 for 8080 and 1e3 for 1000. */
    PORT: z
      .string()
      .regex(/^\d{1,5}$/, 'must be a decimal port number, 0 to 65535')
      .transform(Number)
      .pipe(z.number().max(65535, 'must be a decimal port number, 0 to 65535'))
      .default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: optionalUrl,
    /** On a Postgres server: how long a statement waits for a lock another session holds before a 503 (0: the server's own setting). */
    POSTGRES_LOCK_WAIT_MS: wholeNumber.pipe(z.number().int().min(0)).default(5000),
    /**
     * On a Postgres server: how long a query waits for its answer before a 503 (a server that stopped
     * answering without closing the connection). 10 s: far above a management query's milliseconds,
     * above the lock wait, and with the pool's 5 s wait for a connection still below the 30-60 s after
     * which load balancers answer 504 themselves.
     */
    POSTGRES_QUERY_TIMEOUT_MS: wholeNumber.pipe(z.number().int().min(1000)).default(10_000),
    CLICKHOUSE_URL: optionalUrl,
    CLICKHOUSE_USER: optionalString,
    CLICKHOUSE_PASSWORD: optionalString,
    CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier').default('adsvc'),
    /**
     * On a self-managed ClickHouse cluster: create the database with the Replicated engine, so every
     * migration reaches every replica and MergeTree tables become ReplicatedMergeTree.
     */
    CLICKHOUSE_REPLICATED: booleanFlag.default(false),
    /**
     * A cluster named in the ClickHouse servers' remote_servers: migrations create ReplicatedMergeTree
     * tables on every shard and Distributed tables over them, ON CLUSTER (src/store/clusterDdl.ts).
     */
    CLICKHOUSE_CLUSTER: optionalString.pipe(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier').optional()),
    ADMIN_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    TRACKING_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    /** The admin CLI's defaults for --url and --token (and the demo's for --admin-token); the server ignores them. */
    ADSVC_URL: optionalString,
    ADSVC_ADMIN_TOKEN: optionalString,
    TRACKING_BASE_URL: optionalLinkBase,
    SERVE_BASE_URL: optionalLinkBase,
    /** fastify's trustProxy: unset (trust no proxy), true/false, a hop count, or a comma-separated list of addresses/CIDRs or `loopback`. */
    TRUST_PROXY: optionalString,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BODY_LIMIT_BYTES: wholeNumber.pipe(z.number().int().min(1024)).default(1_048_576),
    /** Largest body the NDJSON event import accepts. */
    IMPORT_BODY_LIMIT_BYTES: wholeNumber.pipe(z.number().int().min(1024)).default(64 * 1_048_576),
    /**
     * How long a whole request (headers and body) may take to arrive; then 408 request_timeout. The
     * answer is not timed (long report downloads). 10 minutes take the largest import at 1 Mbit/s.
     */
    REQUEST_TIMEOUT_MS: wholeNumber.pipe(z.number().int().min(1000)).default(600_000),
    /**
     * How long a stop (SIGTERM) waits for the requests in flight before it closes their connections
     * (server.ts); below Kubernetes' 30 s grace, so the events are written before a SIGKILL.
     */
    SHUTDOWN_GRACE_MS: wholeNumber.pipe(z.number().int().min(0)).default(20_000),
    /**
     * How long the main thread may stop turning its event loop before the watchdog ends the process
     * with SIGKILL for its supervisor to restart (processWatchdog.ts); 0 turns the watchdog off.
     */
    WATCHDOG_TIMEOUT_MS: wholeNumber.pipe(z.number().int().refine((ms) => ms === 0 || ms >= 1000, 'must be 0 (off) or at least 1000')).default(30_000),
    /**
     * How long a streamed download (a CSV report, the audit export) may wait for its client to read
     * (its socket not draining) before it is destroyed and logged: a client that stops reading
     * would otherwise hold a page of the export and its socket's buffers for as long as it stays.
     */
    DOWNLOAD_STALL_TIMEOUT_MS: wholeNumber.pipe(z.number().int().min(1000)).default(120_000),
    /**
     * Streamed downloads one organization (a publisher, the admin token) may hold open at once on
     * this instance; one more is refused 429 rate_limited. Each holds up to a page of its export.
     */
    MAX_DOWNLOADS_PER_OWNER: wholeNumber.pipe(z.number().int().min(1)).default(8),
    /** Events per ClickHouse query of the audit export: what an export holds in memory at most, beside its socket's buffers. */
    EXPORT_PAGE_ROWS: wholeNumber.pipe(z.number().int().min(100).max(100_000)).default(5000),
    /**
     * How long a request's headers may take to arrive (then 408, connection closed): a client
     * sending a header line every few seconds held its connection for Node's 60 s.
     */
    HEADERS_TIMEOUT_MS: wholeNumber.pipe(z.number().int().min(1000)).default(10_000),
    /** Open client connections above which new ones are closed at once; unset, derived from the descriptor limit (connectionLimit.ts). */
    MAX_CONNECTIONS: wholeNumber.pipe(z.number().int().min(1)).optional(),
    /** Event buffer: flush to ClickHouse after this many rows or this many milliseconds, whichever comes first. */
    EVENT_FLUSH_ROWS: wholeNumber.pipe(z.number().int().min(1)).default(50_000),
    EVENT_FLUSH_INTERVAL_MS: wholeNumber.pipe(z.number().int().min(10)).default(1000),
    /** Accepted events not yet in ClickHouse above which tracking answers 503 instead of growing without limit. */
    EVENT_BUFFER_MAX_ROWS: wholeNumber.pipe(z.number().int().min(1)).default(1_000_000),
    /** fsync the event spool before acknowledging (survives power loss, not only a process crash), at a throughput cost. */
    EVENT_SPOOL_FSYNC: booleanFlag.default(false),
    /** /healthz fails its event_backlog check above this many accepted events not yet in ClickHouse... */
    HEALTH_EVENT_BACKLOG_MAX_ROWS: wholeNumber.pipe(z.number().int().min(1)).default(500_000),
    /** ...or when the oldest of them was accepted longer ago than this (writes to ClickHouse are failing). */
    HEALTH_EVENT_BACKLOG_MAX_AGE_SECONDS: wholeNumber.pipe(z.number().int().min(1)).default(60),
    /** Count events from private, loopback and reserved addresses as valid (development installs on localhost). */
    IVT_ALLOW_PRIVATE_IPS: booleanFlag.default(false),
    /** Optional operator CIDR files (comma-separated paths), each line a range treated as data-center traffic. */
    IVT_EXTRA_CIDR_FILES: optionalString,
    /** How often the serving index checks Postgres for management changes. */
    INDEX_REFRESH_MS: wholeNumber.pipe(z.number().int().min(50)).default(250),
    /** ...and how often it checks all the same on embedded PGlite, where every change notifies it at its commit. */
    INDEX_REFRESH_NOTIFIED_MS: wholeNumber.pipe(z.number().int().min(50)).default(5000),
    /** How often the catalog change log is pruned of what every instance has read (see docs/serving.md). */
    INDEX_CHANGES_PRUNE_MS: wholeNumber.pipe(z.number().int().min(100)).default(600_000),
    /** Keep the catalog the ad index is built from in DATA_DIR/catalog-snapshot, so a restart does not read it all from Postgres. */
    CATALOG_SNAPSHOT: booleanFlag.default(true),
    /** How often pacing re-reads today's spend from ClickHouse (the sum over every instance). */
    PACING_SYNC_MS: wholeNumber.pipe(z.number().int().min(100)).default(2000),
    /** How often an instance completes campaigns whose flight has ended (any instance may; the sweep is idempotent). */
    FLIGHT_SWEEP_MS: wholeNumber.pipe(z.number().int().min(100).max(60_000)).default(20_000),
    /** How often ad selection re-reads 30 days of impressions, clicks and conversions to re-estimate CTR and CVR. */
    SELECTION_STATS_REFRESH_MS: wholeNumber.pipe(z.number().int().min(100)).default(60_000),
    /** How often certified placements are checked for server-side (data-center) impression traffic. */
    AUTO_REVOCATION_INTERVAL_MS: wholeNumber.pipe(z.number().int().min(100)).default(60_000),
    /** The look-back window of that check. */
    AUTO_REVOCATION_WINDOW_MINUTES: wholeNumber.pipe(z.number().int().min(1).max(1440)).default(60),
    /** Flag a placement for an operator (logged; nothing changes) when this many serves in the window had a server-side impression. */
    AUTO_REVOCATION_DATACENTER_IMPRESSIONS: wholeNumber.pipe(z.number().int().min(1)).default(20),
    /** Revoke when this share of the window's serves, and of their users, had one, once AUTO_REVOCATION_MIN_IMPRESSIONS serves were seen... */
    AUTO_REVOCATION_DATACENTER_SHARE: decimalNumber.pipe(z.number().gt(0).max(1)).default(0.5),
    AUTO_REVOCATION_MIN_IMPRESSIONS: wholeNumber.pipe(z.number().int().min(1)).default(100),
    /** ...and those server-side serves had at least this many distinct users (the serves' user.id)... */
    AUTO_REVOCATION_MIN_USERS: wholeNumber.pipe(z.number().int().min(1)).default(10),
    /** ...in each of this many windows on end (the latest and the ones before it); less is flagged. */
    AUTO_REVOCATION_WINDOWS: wholeNumber.pipe(z.number().int().min(1).max(168)).default(6),
    /** How long a tracking link stays valid after the serve. */
    TRACKING_LINK_TTL_SECONDS: wholeNumber.pipe(z.number().int().min(60).max(30 * 24 * 3600)).default(7 * 24 * 3600),
    /**
     * The token format new tracking links are signed in; both verify everywhere. 1 while instances
     * older than format 2 still serve the same links (a rolling upgrade, or to be able to roll back).
     */
    TRACKING_TOKEN_FORMAT: z.enum(['1', '2'], { error: 'must be 1 or 2' }).transform((format) => (format === '1' ? (1 as const) : (2 as const))).default(2),
    /** How long the first click of a serve this process does not know waits for others to share its ClickHouse lookup. */
    SERVE_LOOKUP_WINDOW_MS: wholeNumber.pipe(z.number().int().min(1).max(1000)).default(5),
    /** How long that lookup may take; past it the click is stored as impression_unverified, not billed. */
    SERVE_LOOKUP_TIMEOUT_MS: wholeNumber.pipe(z.number().int().min(10)).default(2000),
    /**
     * At most this many otherwise billable (tCPM) impressions of one publisher's placements from one network (an IPv4
     * address, an IPv6 /56) in any 10 s, and in any 10 minutes; beyond, impression_velocity. 0: no limit.
     */
    IMPRESSION_VELOCITY_10S: wholeNumber.pipe(z.number().int().min(0)).default(30),
    IMPRESSION_VELOCITY_10MIN: wholeNumber.pipe(z.number().int().min(0)).default(600),
    /**
     * The same from one block of addresses (an IPv4 /24, an IPv6 /48), whatever the addresses in it: sized for
     * the biggest carrier block reading one publisher (docs/tracking.md, Impression velocity). 0: no limit.
     */
    IMPRESSION_BLOCK_VELOCITY_10S: wholeNumber.pipe(z.number().int().min(0)).default(2000),
    IMPRESSION_BLOCK_VELOCITY_10MIN: wholeNumber.pipe(z.number().int().min(0)).default(24_000),
    /**
     * A publisher's clicks (all its placements) from one block of addresses (an IPv4 /24, an IPv6 /48) beyond
     * this many in any 10 s, or in any 10 minutes, are placement_click_velocity while the block's click-through
     * on them (its clicks against its valid impressions, 10 minutes) is above
     * PLACEMENT_CLICK_THROUGH_MAX, and beyond 10 times this many whatever the click-through (placementBlocks.ts).
     * 0: that window unlimited. 0 click-through: the counts alone.
     */
    PLACEMENT_CLICK_VELOCITY_10S: wholeNumber.pipe(z.number().int().min(0)).default(20),
    PLACEMENT_CLICK_VELOCITY_10MIN: wholeNumber.pipe(z.number().int().min(0)).default(120),
    PLACEMENT_CLICK_THROUGH_MAX: decimalNumber.pipe(z.number().min(0).max(1)).default(0.2),
    /** Days a conversion may follow its click and still be attributed. */
    ATTRIBUTION_WINDOW_DAYS: wholeNumber.pipe(z.number().int().min(1).max(365)).default(30),
    /** The compact word vectors `npm run build` writes (default dist/word-vectors.bin); missing means semantic matching is off. */
    WORD_VECTORS_PATH: optionalString,
    /** Veto every ad next to a sensitive topic (bereavement, accident, disaster, serious diagnosis, ...). */
    BRAND_SAFETY: booleanFlag.default(true),
    /** Count serve requests and fills per placement (publisher and operator reports); false only to measure what counting costs. */
    SERVE_COUNTS: booleanFlag.default(true),
  })
  .superRefine((env, context) => {
    const untrusted = untrustableProxies(env.TRUST_PROXY);
    if (untrusted.length > 0) {
      context.addIssue({ code: 'custom', path: ['TRUST_PROXY'], message: `${untrusted.map((part) => JSON.stringify(part)).join(', ')}: not true, false, a hop count, an address, a CIDR or loopback/linklocal/uniquelocal` });
    }
    if (!env.CLICKHOUSE_URL && FILE_PATTERN_CHARACTERS.test(path.resolve(env.DATA_DIR))) {
      context.addIssue({ code: 'custom', path: ['DATA_DIR'], message: 'holds a character embedded ClickHouse reads as a file pattern (* ? { } [ ] \\): choose a path without them' });
    }
    // An instance that has not read the change log since the previous prune finds what it had not
    // read deleted and rebuilds its index from the whole catalog (docs/serving.md): pruning about as
    // often as this instance reads would rebuild it at nearly every prune. Twice leaves room for a
    // slow read and late timers. Embedded PGlite reads at each catalog commit, else only this often.
    const readEveryName = env.DATABASE_URL ? 'INDEX_REFRESH_MS' : 'INDEX_REFRESH_NOTIFIED_MS';
    const readEveryMs = env.DATABASE_URL ? env.INDEX_REFRESH_MS : env.INDEX_REFRESH_NOTIFIED_MS;
    if (env.INDEX_CHANGES_PRUNE_MS < 2 * readEveryMs) {
      context.addIssue({
        code: 'custom',
        path: ['INDEX_CHANGES_PRUNE_MS'],
        message: `must be at least twice ${readEveryName} (${2 * readEveryMs} ms or more): an instance that has not read the catalog change log for a whole prune interval rebuilds its ad index, so a shorter interval rebuilds it at every prune`,
      });
    }
    if (env.CLICKHOUSE_CLUSTER === undefined) return;
    if (!env.CLICKHOUSE_URL) context.addIssue({ code: 'custom', path: ['CLICKHOUSE_CLUSTER'], message: 'needs CLICKHOUSE_URL (embedded chdb is one server)' });
    // A Replicated database replicates its own DDL and refuses ON CLUSTER: one or the other.
    if (env.CLICKHOUSE_REPLICATED) context.addIssue({ code: 'custom', path: ['CLICKHOUSE_CLUSTER'], message: 'cannot be combined with CLICKHOUSE_REPLICATED' });
  })
  .transform((env) => ({
    ...env,
    TRACKING_BASE_URL: stripTrailingSlash(env.TRACKING_BASE_URL ?? `http://localhost:${env.PORT}`),
    SERVE_BASE_URL: stripTrailingSlash(env.SERVE_BASE_URL ?? `http://localhost:${env.PORT}`),
    TRUST_PROXY: parseTrustProxy(env.TRUST_PROXY),
  }));

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; an invalid value throws a ConfigError whose message names the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * A link base as it is once the server listens: with PORT=0 the default base names port 0, and the
 * port actually bound (known only then) takes its place. A base naming another port is as given.
 */
export function withBoundPort(baseUrl: string, boundPort: number): string {
  const url = new URL(baseUrl);
  if (url.port !== '0') return baseUrl;
  url.port = String(boundPort);
  return stripTrailingSlash(url.href);
}

/** The parts of a TRUST_PROXY list the app could not compile at start, after DATA_DIR is created. */
function untrustableProxies(value: string | undefined): string[] {
  const parsed = parseTrustProxy(value);
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((part) => !isTrustListEntry(part));
}

function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

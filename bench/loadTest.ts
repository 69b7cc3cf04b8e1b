import autocannon from 'autocannon';
import { summarizeLatencies, type LatencySummary } from './latencyStats.js';

export interface LoadOptions {
  baseUrl: string;
  connections: number;
  durationSeconds: number;
  /** Stops after this many requests even if time is left (the duration still applies). */
  maxRequests?: number;
  /** Cycled through by every connection; a request with setupRequest is rebuilt each time it is sent. */
  requests: autocannon.Request[];
  /** Statuses that count as a correct answer; anything else is an error of the service. */
  expectedStatuses: readonly number[];
}

export interface LoadResult {
  requestsPerSecond: number;
  responses: number;
  latency: LatencySummary;
  statusCounts: Record<string, number>;
  /** Responses whose status is not expected. */
  unexpected: number;
  /** Connection errors, timeouts included. */
  errors: number;
  durationSeconds: number;
  /** Every response's latency, so that rounds can be combined exactly. */
  latenciesMs: number[];
  /** req/s of each round, when this result combines several. */
  rounds: number[];
  /**
   * When each round ran, [start, end] in microseconds of the monotonic clock (the clock of a V8 CPU
   * profile's sample times), so a service's profile can be read over its load alone.
   */
  windows: Array<[number, number]>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Load only ever goes to this machine. */
export function assertLoopback(baseUrl: string): void {
  const { hostname } = new URL(baseUrl);
  if (!LOOPBACK_HOSTS.has(hostname)) throw new Error(`refusing to load ${baseUrl}: the bench only loads 127.0.0.1`);
}

/**
 * Fixed concurrency for a fixed time (or count): each of `connections` keep-alive connections sends
 * its next request as soon as the previous answer arrives. Latencies are kept per response (not the
 * integer-millisecond histogram autocannon prints), and so is every status, 3xx included.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  assertLoopback(options.baseUrl);
  const latencies: number[] = [];
  const startedUs = monotonicMicros();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.baseUrl,
        // autocannon needs at least one request per connection; its `amount` would override the duration.
        connections: Math.min(options.connections, options.maxRequests ?? Infinity),
        duration: options.durationSeconds,
        maxOverallRequests: options.maxRequests,
        requests: options.requests,
        timeout: 10,
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
      latencies.push(responseTimeMs);
    });
  });
  const statusCounts: Record<string, number> = {};
  let unexpected = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    statusCounts[status] = count ?? 0;
    if (!options.expectedStatuses.includes(Number(status))) unexpected += count ?? 0;
  }
  return {
    requestsPerSecond: latencies.length / result.duration,
    responses: latencies.length,
    latency: summarizeLatencies(latencies),
    statusCounts,
    unexpected,
    errors: result.errors,
    durationSeconds: result.duration,
    latenciesMs: latencies,
    rounds: [latencies.length / result.duration],
    windows: [[startedUs, monotonicMicros()]],
  };
}

function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Several rounds against one target as one result: all responses over all the time, every latency. */
export function combineRounds(results: readonly LoadResult[]): LoadResult {
  const latenciesMs = results.flatMap((result) => result.latenciesMs);
  const durationSeconds = results.reduce((sum, result) => sum + result.durationSeconds, 0);
  const statusCounts: Record<string, number> = {};
  for (const result of results) {
    for (const [status, count] of Object.entries(result.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + count;
  }
  return {
    requestsPerSecond: latenciesMs.length / durationSeconds,
    responses: latenciesMs.length,
    latency: summarizeLatencies(latenciesMs),
    statusCounts,
    unexpected: results.reduce((sum, result) => sum + result.unexpected, 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    durationSeconds,
    latenciesMs,
    rounds: results.flatMap((result) => result.rounds),
    windows: results.flatMap((result) => result.windows),
  };
}

/**
 * The service and its stub measured in alternating rounds (service, stub, service, stub, ...), both
 * running all along: whatever else the machine does drifts over both, so the ratio holds up even
 * when the absolute figures move between runs. `balanced` orders them service, stub, stub, service,
 * ...: each goes first as often as second, so neither is always the one measured right after the
 * other's round (whose background work, such as the service's flush into ClickHouse, runs on).
 */
export async function alternateRounds(
  rounds: number,
  service: () => Promise<LoadResult>,
  stub: () => Promise<LoadResult>,
  { balanced = false }: { balanced?: boolean } = {},
): Promise<{ service: LoadResult; stub: LoadResult }> {
  const serviceResults: LoadResult[] = [];
  const stubResults: LoadResult[] = [];
  for (let round = 0; round < rounds; round++) {
    if (balanced && round % 2 === 1) {
      stubResults.push(await stub());
      serviceResults.push(await service());
    } else {
      serviceResults.push(await service());
      stubResults.push(await stub());
    }
  }
  return { service: combineRounds(serviceResults), stub: combineRounds(stubResults) };
}

/** What in a load result fails the run: answers other than the expected ones, and connection errors. */
export function loadFailures(what: string, result: LoadResult): string[] {
  const failures: string[] = [];
  if (result.unexpected > 0) failures.push(`${what} answered ${result.unexpected} unexpected statuses: ${JSON.stringify(result.statusCounts)}`);
  if (result.errors > 0) failures.push(`${what}: ${result.errors} connection errors or timeouts`);
  return failures;
}

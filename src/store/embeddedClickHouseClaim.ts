import type { FastifyBaseLogger } from 'fastify';
import type { Client } from 'pg';
import { ADVISORY_LOCKS } from './advisoryLock.js';

/** How long after losing its connection the claim tries to take the lock again. */
const RETAKE_MS = 5_000;

/**
 * The claim's session: Postgres ends it (and the lock) within 10 + 3 x 5 s of its host going silent
 * (a crash of the machine, a network cut), where the OS default waits two hours before the first
 * probe and a restarted instance would be refused as a second one meanwhile; the holder's side
 * probes its socket too, so it notices such a loss and takes the lock again.
 */
const SESSION_KEEPALIVES = 'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3';

/** The operator's fix, in the refusal and in the log of a claim taken over while its connection was lost. */
export const SHARE_ONE_CLICKHOUSE =
  'instances that share a Postgres database must share one ClickHouse too (else each keeps its own events and ledger, and bills a replayed click again): set CLICKHOUSE_URL on every instance to the same ClickHouse server or cluster (docs/running-on-servers.md)';

/**
 * Embedded chdb belongs to one process, so instances that share a Postgres server each keep their
 * own events, duplicate ledger and spend: a click replayed on two of them is billed twice, and each
 * reports and paces on its own share. An instance on a Postgres server with embedded ClickHouse
 * therefore holds a session-level advisory lock (ADVISORY_LOCKS.embeddedClickHouse) on a connection
 * of its own for as long as it runs; a second such instance on the same database finds it held and
 * refuses to start. Postgres releases the lock when the holder's connection ends (a stop, a crash),
 * so a restart is never locked out. One instance on a Postgres server with embedded ClickHouse is
 * legal; instances with CLICKHOUSE_URL take no lock.
 *
 * A lost connection loses the lock, and another such instance may take it meanwhile and keep events
 * in its own chdb. So while the claim is not held (`held()` false) this instance keeps no new event
 * (the pipeline refuses them: tracking answers 503) and /healthz fails (a load balancer takes it
 * out); the claim takes the lock again every RETAKE_MS, says in the log (an error) when another
 * instance took it meanwhile, and accepts events again once it has it back.
 */
export class EmbeddedClickHouseClaim {
  private client: Client | undefined;
  private retake: NodeJS.Timeout | undefined;
  private closed = false;
  private log: FastifyBaseLogger | undefined;
  /** Whether the last retake found the lock held by another instance (logged once, not at every try). */
  private takenOver = false;

  private constructor(private readonly databaseUrl: string) {}

  /**
   * The claim, or undefined when another instance with embedded ClickHouse holds it; rejects with
   * the cause when the server cannot be asked (too many connections, for one), which is not a holder.
   */
  static async take(databaseUrl: string): Promise<EmbeddedClickHouseClaim | undefined> {
    const claim = new EmbeddedClickHouseClaim(databaseUrl);
    return (await claim.tryTake()) ? claim : undefined;
  }

  /** Where a lost or taken-over lock is reported, once the app's logger exists. */
  logTo(log: FastifyBaseLogger): void {
    this.log = log;
  }

  /** Whether this instance holds the lock now: false from a lost connection until the lock is taken again. */
  held(): boolean {
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retake);
    const client = this.client;
    this.client = undefined;
    // Ending the session releases the lock.
    await client?.end().catch(() => undefined);
  }

  private async tryTake(): Promise<boolean> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 5000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client.on('error', () => this.lost(client));
    // An end without an error (the server closed the session cleanly) loses the lock just the same.
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      // Statements, not the startup `options`, which a pooler such as PgBouncer may refuse.
      await client.query(SESSION_KEEPALIVES);
      const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1) AS held', [ADVISORY_LOCKS.embeddedClickHouse]);
      if (rows[0]?.held === true && !this.closed) {
        this.client = client;
        return true;
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    await client.end().catch(() => undefined);
    return false;
  }

  private lost(client: Client): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.log?.warn('lost the Postgres connection that holds the embedded ClickHouse claim; refusing events (503) and failing /healthz until it is taken again');
    this.scheduleRetake();
  }

  private scheduleRetake(): void {
    this.retake = setTimeout(() => {
      // Unreachable counts as held: tried again, and said once, as a claim taken over.
      void this.tryTake().catch(() => false).then((taken) => {
        if (this.closed) return;
        if (taken) {
          this.log?.info('took the embedded ClickHouse claim again; accepting events');
          this.takenOver = false;
          return;
        }
        if (!this.takenOver) {
          this.log?.error(`another instance with embedded ClickHouse may now run on this Postgres database; this one refuses events and fails /healthz until it can take the claim again: ${SHARE_ONE_CLICKHOUSE}`);
        }
        this.takenOver = true;
        this.scheduleRetake();
      });
    }, RETAKE_MS);
    this.retake.unref();
  }
}

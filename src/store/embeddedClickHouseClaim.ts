import type { FastifyBaseLogger } from 'fastify';
import type { Client } from 'pg';
import { ADVISORY_LOCKS } from './advisoryLock.js';

type LogLevel = 'info' | 'warn' | 'error';

/** How often the claim tries to take the lock again after a first try at once failed. */
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
 * A lost connection loses the lock, and the claim takes it again every RETAKE_MS. While Postgres
 * cannot be reached nobody else can take it either (an outage, a failover: the usual cause), so
 * events are still kept, as on any instance during a Postgres outage. Only when a retake finds the
 * lock held by another session has a second instance with embedded ClickHouse started meanwhile:
 * then this instance keeps no new event (`keepsEvents()` false: the pipeline refuses them, tracking
 * answers 503, /healthz fails so a load balancer takes it out), says so once in the log (an error),
 * and keeps events again once it has the lock back. Left open: a network cut between this instance
 * and Postgres alone, during which another such instance starts, has both keep events until the cut
 * heals.
 */
export class EmbeddedClickHouseClaim {
  private client: Client | undefined;
  private retake: NodeJS.Timeout | undefined;
  private closed = false;
  private log: FastifyBaseLogger | undefined;
  /**
   * Whether a retake found the lock held by another session: events are refused from then until a
   * retake takes it, whatever the retakes between find (Postgres out of reach says nothing about
   * who holds the lock, so it must not end the refusal).
   */
  private takenOver = false;
  /** Whether Postgres out of reach was logged since the lock was last held (once, not at every try). */
  private saidUnreachable = false;
  /**
   * What happened before logTo, while the app was being built (seconds, in which the connection
   * can drop and another instance take the lock): written to the log once it exists, not lost.
   */
  private early: { level: LogLevel; message: string; at: number }[] = [];

  private constructor(private readonly databaseUrl: string) {}

  /**
   * The claim, or undefined when another instance with embedded ClickHouse holds it; rejects with
   * the cause when the server cannot be asked (too many connections, for one), which is not a holder.
   */
  static async take(databaseUrl: string): Promise<EmbeddedClickHouseClaim | undefined> {
    const claim = new EmbeddedClickHouseClaim(databaseUrl);
    return (await claim.tryTake()) ? claim : undefined;
  }

  /** Where a lost or taken-over lock is reported, once the app's logger exists; what happened before is written to it now, with when. */
  logTo(log: FastifyBaseLogger): void {
    this.log = log;
    for (const { level, message, at } of this.early.splice(0)) log[level]({ happened_at: new Date(at).toISOString() }, message);
  }

  /** Whether this instance may keep events: false from a retake that found the lock held by another session until the lock is taken again. */
  keepsEvents(): boolean {
    return this.client !== undefined || !this.takenOver;
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
    this.say('warn', `lost the Postgres connection that holds the embedded ClickHouse claim; taking it again (then every ${RETAKE_MS / 1000} s)`);
    // At once: the sooner a retake finds the lock held elsewhere, the fewer events two instances both keep.
    this.scheduleRetake(0);
  }

  private scheduleRetake(delayMs = RETAKE_MS): void {
    this.retake = setTimeout(() => {
      void this.tryTake().then(
        (taken) => this.retaken(taken ? 'taken' : 'taken_over'),
        () => this.retaken('unreachable'),
      );
    }, delayMs);
    this.retake.unref();
  }

  private retaken(found: 'taken' | 'taken_over' | 'unreachable'): void {
    if (this.closed) return;
    if (found === 'taken') {
      this.say('info', this.takenOver ? 'took the embedded ClickHouse claim again; keeping events again' : 'took the embedded ClickHouse claim again');
      this.takenOver = false;
      this.saidUnreachable = false;
      return;
    }
    if (found === 'taken_over' && !this.takenOver) {
      this.say('error', `another instance with embedded ClickHouse now runs on this Postgres database; this one refuses events (503) and fails /healthz until it can take the claim again: ${SHARE_ONE_CLICKHOUSE}`);
      this.takenOver = true;
    }
    if (found === 'unreachable' && !this.takenOver && !this.saidUnreachable) {
      this.say('warn', 'Postgres cannot be reached to take the embedded ClickHouse claim again; events are still kept (no other instance can take it either), trying again');
      this.saidUnreachable = true;
    }
    this.scheduleRetake();
  }

  private say(level: LogLevel, message: string): void {
    if (this.log) this.log[level](message);
    else this.early.push({ level, message, at: Date.now() });
  }
}

import type { CountedEvent, TrackedEvent } from './trackedEvent.js';

/**
 * Where every accepted event goes. `accept` returns only once the events are durable on this
 * machine (the spool), so a 2xx sent after it never loses them; they reach ClickHouse in batches.
 */
export interface EventPipeline {
  /**
   * Throws ApiError('unavailable') when the buffer is full or the instance may not keep events now
   * (the embedded ClickHouse claim lost); the caller answers 503 and nothing is stored.
   */
  accept(events: TrackedEvent[]): void;
  /**
   * The same guarantee, with one spool write for every event accepted this way in the same
   * event-loop turn (group commit): calls `settled()` once that write is complete, or
   * `settled(ApiError('unavailable'))` when it failed. Throws that at once when `accept` would, or
   * the pipeline is closed. For routes under heavy load; a callback, not a promise, because the
   * pixel answers from it (a promise and its turn of the microtask queue per pixel).
   */
  acceptInTurn(event: TrackedEvent, settled: (error?: unknown) => void): void;
  /**
   * Writes the events to ClickHouse now, past the spool, and resolves once ClickHouse has them: for
   * an event whose answer must tell whether it is already stored (a conversion_id), which the next
   * request, at any instance, must find. `token` deduplicates the insert (the same token again
   * counts once). Rejects with ApiError('unavailable') when ClickHouse did not take them, the
   * pipeline is closed or the instance may not keep events now (as `accept`); nothing is kept
   * then, unless ClickHouse stored them and its answer was lost.
   * Until ClickHouse answers they are kept in the spool too: a crash before it does leaves ClickHouse
   * a part of the insert (events_v1's part without its views'), which the next start completes.
   * A refused insert can leave the same (a view's part could not be written: a full disk): it stays
   * kept, and is sent again with its token where events_v1 holds its rows (completeRefusedWrites).
   */
  writeNow(events: TrackedEvent[], token: string): Promise<void>;
  /**
   * Sends again, each with its token and rows as they were, the inserts of `writeNow` that ClickHouse
   * refused, that hold one of these event ids and whose rows events_v1 holds: the views that lack
   * them take them, the tables that have them drop them (deduplicate_blocks_in_dependent_materialized_views).
   * One whose rows events_v1 does not hold is forgotten: nothing of it was kept. For the retry of a
   * refused write (the same conversion_id, an import resent with its key), before it looks up what is
   * stored. Rejects with ApiError('unavailable') when ClickHouse refuses again. Tried at once, whatever
   * the insert's delay; a refusal then counts toward its quarantine only when its next try was due. The
   * pipeline also tries every refused insert at its writes of the spool once its delay has passed, so
   * one kept at another instance completes too.
   */
  completeRefusedWrites(eventIds: string[]): Promise<void>;
  /**
   * Called synchronously for each accepted event (pacing and certification watch these).
   * `written` is true for an event `writeNow` put in ClickHouse (called within that write, so
   * never while a `readBetweenWrites` reads): it never counts in `pending()` nor as `unwritten`.
   * A listener that throws is logged and counted (`listenerFailures`); the event stays accepted.
   */
  onAccepted(listener: (event: TrackedEvent, written: boolean) => void): void;
  /**
   * Calls `visit` with each event a previous run accepted and left in the spool (a crash) that is not
   * in ClickHouse yet, oldest first: the inserts `writeNow` left in flight that the start could not
   * send again (ClickHouse down), then the segments. They are written before any event of this run
   * and count in `pending()` (and as `unwritten`) until they are (or until an insert in flight that
   * ClickHouse keeps refusing is set aside: its events, the first recorded, leave them, and the rest
   * stay the last ones): a counter that adds the accepted events ClickHouse does
   * not have yet (pacing, frequency counts) visits them before its first onAccepted event and counts
   * them the same way, so their spend and impressions are never missing between the start and their
   * write. A segment (or insert) ClickHouse took just before the crash, whose file was not yet
   * removed, is visited too and counts twice until its replay (deduplicated by its insert token)
   * ends: pacing errs towards unbilled events over a ceiling for that while, never towards spend past one.
   */
  forEachRecovered(visit: (event: CountedEvent) => void): void;
  /**
   * Runs `read`, a counter's reading of what ClickHouse holds, while no write of this pipeline is
   * under way, and none starts until it ends. `unwritten`: how many of the events handed so far to
   * the onAccepted listeners (not `written`) and to forEachRecovered ClickHouse does not have yet,
   * the last ones of them in that order. So `read` finds every one of the others, and none of
   * these: a counter that adds them on top of what it reads counts each event once. (Without the
   * gate, an insert ClickHouse holds but has not acknowledged yet would be read and added too.)
   */
  readBetweenWrites<T>(read: (unwritten: number) => Promise<T>): Promise<T>;
  /** Writes everything accepted so far to ClickHouse. */
  flush(): Promise<void>;
  /** Accepted events not yet in ClickHouse. */
  pending(): number;
  /** Counts since start and the backlog now, for /healthz and /metrics. */
  stats(): EventPipelineStats;
  /** Whether the spool can take a write now (a real write, for /healthz). */
  spoolWritable(): boolean;
  /** Flushes and stops the timer; the pipeline accepts nothing after. */
  close(): Promise<void>;
}

export interface EventPipelineStats {
  /** Events accepted (spooled and answered 2xx). */
  accepted: number;
  /** Events refused with 503: buffer full, spool not writable, shutting down, the embedded ClickHouse claim not held. */
  refused: number;
  /** Events ClickHouse acknowledged. */
  written: number;
  /** Spooled lines ClickHouse could not parse, moved to DATA_DIR/quarantine. */
  quarantined: number;
  /** Inserts kept in the spool that ClickHouse refused every time they were sent, moved to DATA_DIR/quarantine. */
  quarantinedWrites: number;
  /** Failed write rounds (each is retried). */
  writeFailures: number;
  /** Throws of onAccepted listeners, for events kept all the same. */
  listenerFailures: number;
  /** Accepted events not yet in ClickHouse. */
  backlogRows: number;
  /**
   * Of them, those of a crash's insert ClickHouse keeps refusing for its rows, set aside while
   * everything else is written: a problem of those rows, not of this instance.
   */
  setAsideRows: number;
  /** When the oldest of the others was accepted (ms since the epoch); undefined when there is none. */
  oldestPendingAt: number | undefined;
  /** Why the last spool write failed; undefined once one succeeds again. */
  spoolFailure: string | undefined;
}

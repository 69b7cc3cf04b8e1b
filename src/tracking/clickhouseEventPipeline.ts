import path from 'node:path';
import { z } from 'zod';
import type { ClickHouseSettings } from '@clickhouse/client';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { ClickHouse } from '../store/clickhouse.js';
import { ApiError } from '../http/errors.js';
import type { EventPipeline, EventPipelineStats } from './eventPipeline.js';
import type { TrackedEvent } from './trackedEvent.js';
import { EventQuarantine } from './eventQuarantine.js';
import { sortSpoolLines } from './unparsableSpoolLines.js';
import { EventSpool, SPOOL_COLUMNS, forEachSpooledEvent, segmentCreatedAt, spoolLine, spooledRow, type InFlightWrite, type SealedSegment } from './eventSpool.js';
import { isRefusedForNow, isUnparsableInsert, isUnreachable } from './insertErrors.js';
import { lockDirectory } from '../store/directoryLock.js';
import { billableServeId, billableServeIdsInLines, billedOnceSelect, ServeIdRanges, spooledSelect, spoolStructure, stringLiteral } from './billedOnce.js';
import { processBillingLock, type BillingLock } from './billingLock.js';
import { ReadWriteGate } from './readWriteGate.js';
import { declaredWrite, widenDaySpan, type DaySpan } from '../store/writtenEventDays.js';
import { StoreUnavailableError } from '../store/storeUnavailable.js';

export interface EventPipelineOptions {
  config: Pick<Config, 'DATA_DIR' | 'EVENT_FLUSH_ROWS' | 'EVENT_FLUSH_INTERVAL_MS' | 'EVENT_BUFFER_MAX_ROWS' | 'EVENT_SPOOL_FSYNC'>;
  ch: ClickHouse;
  log: FastifyBaseLogger;
  /** Serialises the billing lookup and insert with every other pipeline sharing the stores; by default with this process's only. */
  billing?: BillingLock;
  /**
   * Whether events may be kept now; none are refused when not given. False while another instance
   * holds this one's embedded ClickHouse claim (embeddedClickHouseClaim.ts): it keeps events in a
   * ClickHouse of its own then, which would bill a replayed click a second time.
   */
  mayAccept?: () => boolean;
}

/** The longest wait between retries: writing resumes within about this long after a fault clears. */
const MAX_RETRY_DELAY_MS = 4000;
/** How often a spool that still cannot be written is logged again, with the events refused since. */
const SPOOL_FAILURE_LOG_INTERVAL_MS = 60_000;
/**
 * How many times ClickHouse may refuse a kept insert for its rows (a view whose query fails on them:
 * not a full disk or load, isRefusedForNow, which pass) before it is moved to the quarantine.
 */
const KEPT_WRITE_REFUSALS = 6;
/** The longest wait between two tries of a refused insert by the pipeline's own writes (completeRefused). */
const MAX_REFUSED_RETRY_DELAY_MS = 60_000;
/**
 * How long an insert a crash left in flight that ClickHouse answers with a refusal (whatever its
 * code) stays ahead of the segments before it is set aside (writeInFlight): through a short refusal
 * the spool's events wait behind it, as in an outage, and pacing's `unwritten` stays exact; one
 * refused every time (a view over its memory or time limit on those rows: a "for now" code, never
 * quarantined) held back every segment for good, the backlog grew to EVENT_BUFFER_MAX_ROWS and every
 * pixel and click answered 503 (rev38 F3).
 */
const IN_FLIGHT_AHEAD_MS = 4000;
/** A crash's insert that ClickHouse keeps refusing the same way is logged at every this many tries (logsRefusal). */
const REFUSAL_LOG_EVERY = 10;
/** A wait for the billing lock (billingLock.ts) worth telling the operator about. */
const SLOW_BILLING_LOCK_MS = 1000;

/**
 * Buffers accepted events (durably, in the spool) and writes them to ClickHouse in batches: on
 * EVENT_FLUSH_ROWS rows or every EVENT_FLUSH_INTERVAL_MS, and on close. A failed write is retried
 * with backoff (at most MAX_RETRY_DELAY_MS) for as long as it takes; nothing is ever dropped. A line
 * ClickHouse cannot parse goes to the quarantine and the lines around it are still written. When
 * more than EVENT_BUFFER_MAX_ROWS are waiting, accept() refuses (503) instead of growing without limit.
 */
export async function createClickHouseEventPipeline({ config, ch, log, billing = processBillingLock, mayAccept }: EventPipelineOptions): Promise<EventPipeline> {
  const spoolDirectory = path.join(config.DATA_DIR, 'spool');
  // Before recover(): the segments found there must be a gone process's, never a running pipeline's.
  const releaseSpool = lockDirectory(spoolDirectory, { name: 'the event spool', harm: "two on one spool would replay and delete each other's events" });
  let spool: EventSpool;
  let sealed: SealedSegment[];
  let inFlight: KeptWrite[];
  /**
   * The inserts of writeNow ClickHouse refused (answered 503), which events_v1 may hold without every
   * view, and those a crash left in flight that writeInFlight set aside: completeRefused.
   */
  let refused: KeptWrite[];
  /** The tries under way to complete a refused write, which a second caller shares (completeOnce). */
  const completing = new Map<KeptWrite, Promise<void>>();
  try {
    spool = new EventSpool(spoolDirectory, config.EVENT_SPOOL_FSYNC);
    sealed = spool.recover();
    inFlight = spool.inFlight().map((write) => ({ ...keptWrite(write), fromCrash: true }));
    refused = spool.failedWrites().map(keptWrite);
  } catch (error) {
    releaseSpool();
    throw error;
  }
  const quarantine = new EventQuarantine(path.join(config.DATA_DIR, 'quarantine'));
  /** The serves of the valid link events of each segment this run spooled, checked by its insert (billedOnce.ts). */
  const billable = new Map<string, ServeIdRanges>();
  /**
   * The UTC days of the events of each segment this run spooled, which its insert names
   * (writtenEventDays.ts): today's events leave the kept figures of past days as they are. A segment
   * a previous run left has none here, and its insert counts as changing every day.
   */
  const eventDays = new Map<string, DaySpan>();
  /** Segments a previous run left: their valid link events are read from their lines. */
  const recovered = new Set(sealed.map((segment) => segment.name));
  const listeners: Array<(event: TrackedEvent, written: boolean) => void> = [];
  const counts = { accepted: 0, refused: 0, written: 0, quarantined: 0, quarantinedWrites: 0, writeFailures: 0, listenerFailures: 0 };
  let sealedCount = sealed.reduce((sum, segment) => sum + segment.events, 0);
  /** The events of the inserts a crash left in flight: accepted (answered 2xx) and not yet in ClickHouse, like a segment's. */
  let inFlightCount = inFlight.reduce((sum, write) => sum + write.events, 0);
  let writing: Promise<void> | undefined;
  let retryDelayMs = 0;
  let closed = false;

  if (sealed.length > 0) log.info({ segments: sealed.length, events: sealedCount }, 'replaying spooled events');

  /** Events handed to acceptInTurn() whose group write has not happened yet. */
  let turn: { events: TrackedEvent[]; settle: Array<(error?: unknown) => void> } | undefined;
  /** Accepted events not in ClickHouse yet that the listeners have had (the turn's are not handed to them until its spool write). */
  const unwritten = () => inFlightCount + sealedCount + spool.openCount;
  const pending = () => unwritten() + (turn?.events.length ?? 0);
  /**
   * Each write holds it from its insert to the count of what is left to write (`unwritten`):
   * readBetweenWrites reads between them, never finding rows that still count as unwritten.
   */
  const gate = new ReadWriteGate();

  function sealOpenSegment(): void {
    for (const segment of spool.seal()) {
      sealed.push(segment);
      sealedCount += segment.events;
    }
  }

  function insertSettings(token: string): ClickHouseSettings {
    return {
      insert_deduplication_token: token,
      deduplicate_blocks_in_dependent_materialized_views: 1,
      // Segments spooled by an older release list fewer (leading) columns: the rest take their defaults.
      input_format_json_compact_allow_variable_number_of_columns: 1,
    };
  }

  /** events_v1's column types of SPOOL_COLUMNS as a string literal, for the engine's readers of spooled rows; asked once. */
  let structure: Promise<string> | undefined;
  function spooledStructure(): Promise<string> {
    structure ??= spoolStructure(ch).then(stringLiteral, (error: unknown) => {
      structure = undefined;
      throw error;
    });
    return structure;
  }

  /**
   * `serves`: the body's billable events, whose serves the insert checks (billedOnce.ts). Every
   * insert is a select over the rows, which checks their type (spooledSelect). A server reads the
   * body through input() as the rows of that select. Embedded chdb's input()
   * reads the process's stdin instead of the statement's rows (it waits forever on an open pipe or
   * terminal), so there the body goes to a file of its own, which the engine reads with file().
   */
  async function insert(body: string, token: string, serves: ServeIdRanges | undefined, days: DaySpan | undefined): Promise<unknown> {
    // The spool's lines are the insert's body as they are: ClickHouse parses them, Node never re-encodes them.
    if (ch.kind === 'embedded') {
      const file = spool.writeForEngine(body);
      try {
        return await insertFile(file, token, serves, days);
      } finally {
        spool.removeForEngine(file);
      }
    }
    const source = `input(${await spooledStructure()})`;
    const select = serves === undefined ? spooledSelect(source) : billedOnceSelect(source, serves);
    return ch.client.command(ofDays({ query: `${INSERT_EVENTS_SELECT} ${select} FORMAT JSONCompactEachRow\n${body}`, clickhouse_settings: insertSettings(token) }, days));
  }

  /**
   * Embedded ClickHouse reads the sealed segment itself with its file() reader (parallel parsing,
   * off the event loop), so the segment never passes through Node: 2.5x the inline insert of the
   * same body in a measurement of 100,000 rows. The table function takes events_v1's structure.
   */
  async function insertFile(file: string, token: string, serves: ServeIdRanges | undefined, days: DaySpan | undefined): Promise<unknown> {
    const source = `file(${stringLiteral(file)}, JSONCompactEachRow, ${await spooledStructure()})`;
    const select = serves === undefined ? spooledSelect(source) : billedOnceSelect(source, serves);
    return ch.client.command(ofDays({ query: `${INSERT_EVENTS_SELECT} ${select}`, clickhouse_settings: insertSettings(token) }, days));
  }

  /** An insert's params, naming the days of its events when they are known (undefined: every day). */
  function ofDays<Params extends object>(params: Params, days: DaySpan | undefined): Params {
    return days === undefined ? params : declaredWrite(ch.writtenEventDays, params, days);
  }

  /**
   * Inserts a body of `lineCount` lines and returns how many were written. When ClickHouse cannot
   * parse it, each half is inserted on its own, down to single lines, which go to the quarantine.
   * The tokens follow the halving, which depends only on the segment's content, so a retried or
   * replayed segment repeats the same tokens and counts once (while ClickHouse remembers them: its
   * last 10,000 inserts of a table). Only for lines sortSpoolLines passes, which are rarely refused.
   */
  async function insertLines(
    segmentName: string,
    body: string,
    lineCount: number,
    token: string,
    serves: ServeIdRanges | undefined,
    days: DaySpan | undefined,
  ): Promise<number> {
    try {
      await insert(body, token, serves, days);
      return lineCount;
    } catch (error) {
      if (!isUnparsableInsert(error)) throw error;
      const lines = body.split(/(?<=\n)/);
      if (lines.length === 1) {
        const file = quarantine.keep(segmentName, body);
        counts.quarantined += 1;
        log.error({ err: error, segment: segmentName, quarantine: file }, 'ClickHouse cannot parse a spooled event; it is quarantined');
        return 0;
      }
      const half = Math.ceil(lines.length / 2);
      // Each half is checked against the serves of the whole body: a superset, so the same answer.
      const first = await insertLines(segmentName, lines.slice(0, half).join(''), half, `${token}:a`, serves, days);
      return first + (await insertLines(segmentName, lines.slice(half).join(''), lines.length - half, `${token}:b`, serves, days));
    }
  }

  /**
   * A whole segment, under its name as the token. Embedded, the engine reads the file; anything it
   * cannot parse (a torn last line after a power loss included) sends the segment the inline way,
   * which cuts the torn line and halves around bad ones. Nothing was written by the failed read:
   * a segment is one insert block (fewer rows than min_insert_block_size_rows), so it fails whole.
   */
  async function insertSegment(segment: SealedSegment, serves: ServeIdRanges | undefined): Promise<number> {
    const file = ch.kind === 'embedded' ? spool.readableByEngine(segment.name) : undefined;
    const days = eventDays.get(segment.name);
    try {
      if (file !== undefined && segment.events < ONE_INSERT_BLOCK_ROWS) {
        await insertFile(file, segment.name, serves, days);
        return segment.events;
      }
      const body = spool.read(segment.name);
      // An empty body is not an insert (ClickHouse refuses it): the segment just goes.
      if (body === '') return 0;
      await insert(body, segment.name, serves, days);
      return segment.events;
    } catch (error) {
      if (!isUnparsableInsert(error)) throw error;
    }
    // Refused whole, so nothing of it was written (a segment is one insert block).
    const body = setAsideUnparsableLines(segment, spool.read(segment.name));
    return body === '' ? 0 : insertLines(segment.name, body, segment.events, segment.name, serves, days);
  }

  /**
   * Moves the lines of a segment ClickHouse refused that Node can tell are no rows to the
   * quarantine, in one file, then rewrites the segment without them, and answers what is left: sent
   * again under the segment's own token, one insert, which a replay after a crash repeats exactly.
   * Halving (insertLines) is left for lines whose values ClickHouse refuses.
   */
  function setAsideUnparsableLines(segment: SealedSegment, body: string): string {
    const sorted = sortSpoolLines(body);
    if (sorted.unparsableCount === 0) return body;
    // Quarantined first: a crash between the two steps sorts the same lines into the same file again.
    const file = quarantine.keepLines(segment.name, sorted.unparsable);
    spool.replace(segment.name, sorted.parsable);
    counts.quarantined += sorted.unparsableCount;
    // The segment holds only the rest now: a retry of its insert writes (and counts) those alone.
    segment.events = sorted.parsableCount;
    sealedCount -= sorted.unparsableCount;
    log.error(
      { segment: segment.name, quarantined: sorted.unparsableCount, kept: sorted.parsableCount, reason: sorted.firstReason, quarantine: file },
      'ClickHouse cannot parse some spooled events; they are quarantined and the rest is written',
    );
    return sorted.parsable;
  }

  /** The serves of the segment's valid link events, which its insert checks; undefined when it has none. */
  function billableServes(segment: SealedSegment): ServeIdRanges | undefined {
    const serves = recovered.has(segment.name) ? billableServeIdsInLines(spool.read(segment.name)) : billable.get(segment.name);
    return serves !== undefined && serves.size > 0 ? serves : undefined;
  }

  /** Inserts the segment and forgets it, as one write of the gate. */
  function insertAndForget(segment: SealedSegment, serves: ServeIdRanges | undefined): Promise<void> {
    return gate.run('write', async () => {
      counts.written += await insertSegment(segment, serves);
      spool.remove(segment.name);
      billable.delete(segment.name);
      eventDays.delete(segment.name);
      recovered.delete(segment.name);
      sealed.splice(sealed.indexOf(segment), 1);
      sealedCount -= segment.events;
    });
  }

  /**
   * A segment with valid link events is checked and inserted as one step across instances
   * (billingLock.ts): no other pipeline's check runs between them, so an event of the same serve
   * elsewhere is found once it counts. When the lock cannot be taken (Postgres down) nothing is
   * inserted and the segment stays for the next try, never billed twice. The gate is taken inside
   * the lock: a counter's read never waits for another instance's write.
   */
  async function writeSegment(segment: SealedSegment): Promise<void> {
    const serves = billableServes(segment);
    if (serves === undefined) return insertAndForget(segment, undefined);
    const askedAt = Date.now();
    return billing(async () => {
      const waitedMs = Date.now() - askedAt;
      if (waitedMs >= SLOW_BILLING_LOCK_MS) log.warn({ segment: segment.name, waitedMs }, 'waited long for the billing lock: other instances writing faster than one at a time can, or Postgres slow to answer');
      return insertAndForget(segment, serves);
    });
  }

  /**
   * Sends again, each with its own token, the inserts past the segments (writeNow) a killed process
   * left unacknowledged. A kill -9 during such an insert can leave events_v1 with its row and a view
   * without it (each table commits its own part: embedded chdb's commit-crash test): the next
   * request with the same conversion_id then finds it stored and adds nothing, and the row would
   * be billed in events_v1 but missing from daily_stats_v1, which pacing and the billing ceilings
   * read. The same token again is dropped by each table that has it and taken by those that lack it
   * (deduplicate_blocks_in_dependent_materialized_views), or is the whole insert when none has it.
   * They go before the segments, whose events pacing and the frequency counts recorded after theirs
   * (`unwritten` counts the last ones). One ClickHouse refuses for IN_FLIGHT_AHEAD_MS is set aside
   * with the refused writes (setAside), and one it refuses for its rows every time is quarantined
   * (refusedAgain): the segments would otherwise wait behind it for good.
   */
  async function writeInFlight(): Promise<void> {
    while (inFlight[0] !== undefined) {
      const write = inFlight[0];
      await gate.run('write', async () => {
        const due = write.nextTryAt <= Date.now();
        try {
          await ch.client.command({ query: `${INSERT_EVENTS}\n${write.body}`, clickhouse_settings: insertSettings(write.token) });
        } catch (error) {
          if (refusedAgain(write, error, { due })) return leaveInFlight(write);
          // Unreachable, the segments would fail the same way: they wait.
          if (isUnreachable(error)) throw error;
          write.refusedSince ??= Date.now();
          if (Date.now() - write.refusedSince < IN_FLIGHT_AHEAD_MS) throw error;
          return setAside(write);
        }
        spool.forgetInFlight(write.name);
        leaveInFlight(write);
        counts.written += write.events;
      });
    }
  }

  /** The first insert in flight no longer counts as unwritten: it is written, quarantined or set aside. */
  function leaveInFlight(write: KeptWrite): void {
    inFlight.shift();
    inFlightCount -= write.events;
  }

  /**
   * An insert a crash left in flight that ClickHouse keeps refusing goes on with the refused writes:
   * tried at its own pace (refusedAgain), by the drain and by its request's retry, and the segments
   * are written past it. It is still sent as a crash's, whether or not events_v1 holds its rows (its
   * request was never answered), and stays `*.in-flight` on disk, so a restart puts it ahead again.
   * Its events leave `unwritten`: they were the first the counters recorded (forEachRecovered), so
   * the rest stay the last ones, and pacing counts its spend from what ClickHouse holds until it is
   * written (docs/failure-modes.md: the same limit as a refused write's).
   */
  function setAside(write: KeptWrite): void {
    leaveInFlight(write);
    write.leftByCrash = true;
    refused.push(write);
    log.error(
      { file: write.name, token: write.token, events: write.events, campaigns: [...write.campaignIds], refusedForMs: Date.now() - (write.refusedSince ?? Date.now()) },
      "ClickHouse keeps refusing an insert a crash left in flight; set aside: the spool's events are written past it, and it is tried again on its own",
    );
  }

  /**
   * Sends again the refused inserts that hold one of `eventIds` (all when undefined), each with its
   * token and its body as first sent, when events_v1 holds its rows: a refusal can come after
   * events_v1 and some views took the block and before another view's part was written (embedded
   * chdb on a full disk: "Cannot reserve 1.00 MiB ... while pushing to view"), and the next request
   * with the same conversion_id or import key then finds the rows and writes nothing, so the views
   * that lack them (the reports', pacing's and the billing ceilings' rollups) would never get them.
   * One events_v1 does not hold is forgotten: its request was answered 503 and nothing was kept (one
   * a crash left, setAside, is sent whatever events_v1 holds). Without `eventIds` (the pipeline's own
   * writes), only those whose delay since their last try has passed (refusedAgain); a request's retry
   * tries its own at once, but a refusal then counts only when the try was due. Rejects with the
   * first refusal, once each of them is tried.
   */
  async function completeRefused(eventIds: Set<string> | undefined): Promise<void> {
    const now = Date.now();
    const due = (write: KeptWrite) => (eventIds === undefined ? write.nextTryAt <= now : [...eventIds].some((id) => write.eventIds.has(id)));
    let failure: unknown;
    for (const write of refused.filter(due)) {
      try {
        await completeOnce(write);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /**
   * One try to complete a refused write; a caller that comes while another's try is under way (the
   * drain and a conversion's retry, two retries of one client) shares its outcome instead of sending
   * the write a second time and counting a second refusal.
   */
  function completeOnce(write: KeptWrite): Promise<void> {
    let attempt = completing.get(write);
    if (attempt === undefined) {
      attempt = gate.run('write', () => tryToComplete(write)).finally(() => completing.delete(write));
      completing.set(write, attempt);
    }
    return attempt;
  }

  async function tryToComplete(write: KeptWrite): Promise<void> {
    if (!refused.includes(write)) return;
    const due = write.nextTryAt <= Date.now();
    let held = true;
    // A crash's insert was never answered: sent whatever events_v1 holds, as writeInFlight sends it.
    if (!write.leftByCrash) {
      try {
        held = await heldByEvents(write);
      } catch (error) {
        // The check's read failed, not the write: no refusal of its rows to count.
        if (!refusedAgain(write, error, { ofTheRows: false, due })) throw error;
        return;
      }
    }
    try {
      if (held) {
        await ch.client.command({ query: `${INSERT_EVENTS}\n${write.body}`, clickhouse_settings: insertSettings(write.token) });
        if (write.leftByCrash) {
          counts.written += write.events;
          log.info({ file: write.name, token: write.token, events: write.events, tries: write.tries }, 'ClickHouse took at last an insert a crash left in flight, set aside after its refusals');
        } else log.info({ events: write.events }, 'sent again an insert ClickHouse had refused: its rows were in events_v1, now in every view too');
      }
      spool.forgetInFlight(write.name);
    } catch (error) {
      if (!refusedAgain(write, error, { due })) throw error;
    }
    // Guarded all the same: splice(-1, 1) would drop the last refused write, another request's.
    const at = refused.indexOf(write);
    if (at !== -1) refused.splice(at, 1);
  }

  /**
   * Counts a failed send of a kept insert, sets when the pipeline tries it again, and says whether
   * it was quarantined. One ClickHouse refuses for its rows (a view whose query fails on them, not a
   * full disk or load: isRefusedForNow) KEPT_WRITE_REFUSALS times would be refused for good: kept,
   * its conversion_id or import batch answered 503 forever, and one a restart found ahead of the
   * segments held them back. It is moved to DATA_DIR/quarantine as it was, for the operator to send
   * again once the cause is fixed (docs/failure-modes.md), and its request's retry then answers from
   * what events_v1 holds. Only a try that was `due` (its delay since the last counted one had passed)
   * counts: a client retrying its request fast, a flush or a drain while an insert in flight holds
   * the segments back, tried it sooner; counted, six such tries quarantined it within seconds, the
   * views still lacking its rows (rev38 F3). Those tries are still made (a fault that cleared
   * completes it at once) and logged; they leave the count and the next try's time as they were.
   */
  function refusedAgain(write: KeptWrite, error: unknown, { ofTheRows = true, due = true }: { ofTheRows?: boolean; due?: boolean } = {}): boolean {
    const held = { file: write.name, token: write.token, events: write.events, campaigns: [...write.campaignIds] };
    if (!due) {
      if (logsRefusal(write, error, false)) {
        log.error({ err: error, ...held, refusals: write.refusals, retryInMs: write.nextTryAt - Date.now() }, 'ClickHouse refused again an insert kept in the spool, tried before its time (not counted); will retry');
      }
      return false;
    }
    write.tries += 1;
    if (ofTheRows && !isRefusedForNow(error)) write.refusals += 1;
    write.nextTryAt = Date.now() + Math.min(MAX_REFUSED_RETRY_DELAY_MS, config.EVENT_FLUSH_INTERVAL_MS * 2 ** (write.tries - 1));
    if (write.refusals < KEPT_WRITE_REFUSALS) {
      if (logsRefusal(write, error, true)) {
        log.error({ err: error, ...held, refusals: write.refusals, tries: write.tries, retryInMs: write.nextTryAt - Date.now() }, 'ClickHouse refused again an insert kept in the spool; will retry');
      }
      return false;
    }
    let moved: string;
    try {
      moved = quarantine.takeWrite(spool.pathOf(write.name));
    } catch (moveError) {
      log.error({ err: moveError, ...held }, 'cannot move to the quarantine an insert ClickHouse refuses every time; will retry');
      return false;
    }
    counts.quarantinedWrites += 1;
    log.error(
      { err: error, ...held, quarantine: moved, refusals: write.refusals },
      `ClickHouse refused ${write.refusals} times, for its rows, an insert kept in the spool (events_v1 may hold it without every view, so reports lack it); moved it to the quarantine: send it again once the cause is fixed (docs/failure-modes.md)`,
    );
    return true;
  }

  /**
   * Whether this refusal of a kept insert is logged. A crash's insert is tried by every flush while
   * it is ahead of the segments (every EVENT_FLUSH_INTERVAL_MS) and then, set aside, for as long as
   * ClickHouse refuses it, with no request waiting on it: its first refusal is logged, then one
   * whose error differs, and every REFUSAL_LOG_EVERY-th try (with the count), not each try
   * (wedge39's line came every 100 ms to 60 s for hours). A refused conversion or import batch is
   * logged at each try, as its client's retries come.
   */
  function logsRefusal(write: KeptWrite, error: unknown, due: boolean): boolean {
    if (!write.fromCrash) return true;
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    const refusal = String(code ?? message);
    const logs = refusal !== write.loggedRefusal || (due && write.tries % REFUSAL_LOG_EVERY === 0);
    write.loggedRefusal = refusal;
    return logs;
  }

  /**
   * Whether events_v1 holds the write's rows: one insert of one month, so all of them or none. Rows
   * of its event ids that are judged otherwise (cost, revenue, price, unbilled reason, ivt) are
   * another request's under the same token (the retry at another instance, judged again after a
   * bid or budget changed, itself refused after events_v1 took it): sending this body then would
   * give the views that lack the token this body's figures while events_v1 keeps the other's, so it
   * is not sent; that request's own file completes the views.
   */
  async function heldByEvents(write: KeptWrite): Promise<boolean> {
    const result = await ch.client.query({
      query: `SELECT toString(event_id) AS id, toString(cost_nanos) AS cost, toString(revenue_nanos) AS revenue, toString(price_nanos) AS price, unbilled, ivt
              FROM events_v1 WHERE campaign_id IN {campaigns:Array(UUID)} AND event_id IN {ids:Array(UUID)}`,
      query_params: { campaigns: [...write.campaignIds], ids: [...write.eventIds] },
      format: 'JSONEachRow',
    });
    const held = heldRows.parse(await result.json());
    if (held.length === 0) return false;
    const sent = new Map<string, string>();
    for (const line of write.body.split('\n')) {
      const row = spooledRow(line);
      if (row !== undefined) sent.set(String(row[EVENT_ID]), judged(row[COST] ?? 0, row[REVENUE] ?? 0, row[PRICE] ?? 0, row[UNBILLED] ?? '', row[IVT] ?? ''));
    }
    const others = held.filter((row) => sent.get(row.id) !== judged(row.cost, row.revenue, row.price, row.unbilled, row.ivt));
    if (others.length > 0) log.warn({ file: write.name, token: write.token, events: others.length }, 'events_v1 holds the events of a refused insert as another request wrote them; not sent again');
    return others.length === 0;
  }

  /**
   * Writes every sealed segment, oldest first. A segment ClickHouse refuses for another reason stays
   * for the next try, and the later ones are still written: none waits behind it. When ClickHouse
   * cannot be reached at all, the rest wait for the next try.
   */
  async function writeSealed(): Promise<void> {
    await writeInFlight();
    // A refused insert holds no accepted event (its request was answered 503): one that fails again
    // (logged by refusedAgain) waits for its own next try, and neither the segments nor this drain's
    // outcome (the retry delay, a flush that waits for the spool) wait on it.
    await completeRefused(undefined).catch(() => undefined);
    let firstError: unknown;
    const tried = new Set<SealedSegment>();
    // Segments sealed while this runs are written in this round too: a flush() that joins it waits for them.
    for (let segment = sealed[0]; segment !== undefined; segment = sealed.find((next) => !tried.has(next))) {
      tried.add(segment);
      try {
        await writeSegment(segment);
      } catch (error) {
        if (isUnreachable(error)) throw error;
        firstError ??= error;
      }
    }
    if (firstError !== undefined) throw firstError;
  }

  /** One writer at a time; concurrent callers wait for the same write. */
  function drain(): Promise<void> {
    writing ??= writeSealed()
      .then(() => {
        retryDelayMs = 0;
      })
      .finally(() => {
        writing = undefined;
      });
    return writing;
  }

  /** At start: a failure is logged and the flush timer tries again, as with any write. */
  async function drainInFlight(): Promise<void> {
    try {
      await writeInFlight();
    } catch (error) {
      log.error({ err: error, inserts: inFlight.length }, 'writing again the inserts a crash left failed; will retry');
    }
  }

  async function tick(): Promise<void> {
    sealOpenSegment();
    if (sealed.length === 0 && inFlight.length === 0 && refused.length === 0) return;
    try {
      await drain();
    } catch (error) {
      counts.writeFailures += 1;
      retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(config.EVENT_FLUSH_INTERVAL_MS, retryDelayMs * 2));
      // The billing lock lives in Postgres: an outage there stops the writes as surely as one of
      // ClickHouse, and the operator must be sent to the right store.
      const failed = error instanceof StoreUnavailableError ? ': Postgres (the billing lock) is unavailable' : isUnreachable(error) ? '' : ': ClickHouse refused the insert';
      log.error({ err: error, pending: pending(), retryInMs: retryDelayMs }, `writing events failed${failed}; will retry`);
    }
  }

  let timer: NodeJS.Timeout | undefined;
  function schedule(delayMs: number): void {
    if (closed) return;
    timer = setTimeout(() => {
      void tick().finally(() => schedule(retryDelayMs || config.EVENT_FLUSH_INTERVAL_MS));
    }, delayMs);
    timer.unref();
  }
  if (inFlight.length > 0) {
    // Before the pipeline is handed out, so before pacing's first sync reads the views (servingRoutes.ts).
    log.info({ inserts: inFlight.length }, 'writing again the inserts a crash left unacknowledged');
    await drainInFlight();
  }
  schedule(sealed.length > 0 || inFlight.length > 0 ? 0 : config.EVENT_FLUSH_INTERVAL_MS);

  function refuse(count: number, message: string): never {
    counts.refused += count;
    throw new ApiError('unavailable', message);
  }

  function stats(): EventPipelineStats {
    // In-flight files are named like segments: they too start with the time they were written.
    // A crash's insert set aside is still accepted and not in ClickHouse: in the backlog, though no
    // longer in `unwritten` (setAside), or /healthz said 0 while it waited for hours. Its age is not
    // the backlog's: it dates from before the crash, and would fail /healthz while every other
    // segment is written (a load balancer would drop a working instance).
    const setAsideRows = refused.filter((write) => write.leftByCrash).reduce((sum, write) => sum + write.events, 0);
    const oldest = [inFlight[0] && segmentCreatedAt(inFlight[0].name), sealed[0] && segmentCreatedAt(sealed[0].name), spool.openSince].filter(
      (at) => at !== undefined,
    );
    return {
      ...counts,
      backlogRows: pending() + setAsideRows,
      setAsideRows,
      oldestPendingAt: oldest.length > 0 ? Math.min(...oldest) : undefined,
      spoolFailure: spool.failure?.message,
    };
  }

  /**
   * The spool failure last logged (by its code: a failed open names a new segment file in each
   * message), when, and the events refused since, until an append succeeds again.
   */
  let spoolFailureLogged: { kind: string; at: number; refusedSince: number } | undefined;
  /**
   * Each listener's failure last logged: a listener that throws on every event logs once, and the
   * metric counts them all. Per listener: with one message for all, two listeners throwing on every
   * event took turns and logged twice per event.
   */
  const listenerFailureLogged = new Map<(typeof listeners)[number], string>();

  /**
   * Tells every listener about an event that is kept (spooled or written), each on its own: the
   * event's answer is the kept answer whatever a listener does. A throw here answered 500 for a
   * kept event, whose retry would be a second event, and skipped the billing check of the events
   * after it (append). A listener that missed the event (pacing, caps) catches up at its next
   * read of ClickHouse.
   */
  function tell(event: TrackedEvent, written: boolean): void {
    for (const listener of listeners) {
      try {
        listener(event, written);
      } catch (error) {
        counts.listenerFailures += 1;
        const message = error instanceof Error ? error.message : String(error);
        if (listenerFailureLogged.get(listener) === message) continue;
        listenerFailureLogged.set(listener, message);
        log.error({ err: error, event: event.event_id }, 'a listener of accepted events threw; the event is kept');
      }
    }
  }

  /** Throws ApiError('unavailable') when `count` more events cannot be taken. */
  function checkRoom(count: number): void {
    if (closed) refuse(count, 'service is shutting down');
    if (mayAccept !== undefined && !mayAccept()) refuse(count, NOT_EXACTLY_ONCE);
    if (pending() + count > config.EVENT_BUFFER_MAX_ROWS) {
      log.warn({ pending: pending() }, 'event buffer is full; refusing events');
      refuse(count, 'event buffer is full; retry later');
    }
  }

  function append(events: TrackedEvent[]): void {
    try {
      spool.append(events);
    } catch (error) {
      // Once per kind of failure, then once a minute with a count, not per refused request: a full
      // or read-only disk refuses every pixel (the refusals are counted in the metrics), and a
      // stack per request (3.6 MB in 80 s at a few pixels a second: try40 F6) filled the log, and
      // the disk, that had to say why.
      const failure = spool.failure as NodeJS.ErrnoException | undefined;
      const kind = failure?.code ?? failure?.message ?? String(error);
      const now = Date.now();
      if (spoolFailureLogged?.kind !== kind) {
        spoolFailureLogged = { kind, at: now, refusedSince: 0 };
        log.error({ err: failure, pending: pending() }, 'cannot write the event spool; refusing events until it can');
      } else if (now - spoolFailureLogged.at >= SPOOL_FAILURE_LOG_INTERVAL_MS) {
        log.error({ code: kind, refused: spoolFailureLogged.refusedSince, pending: pending() }, 'the event spool still cannot be written; refusing events');
        spoolFailureLogged = { kind, at: now, refusedSince: 0 };
      }
      spoolFailureLogged.refusedSince += events.length;
      refuse(events.length, (error as Error).message);
    }
    if (spoolFailureLogged !== undefined) {
      // With the events refused since the last line: for an outage under a minute, the only count logged.
      log.info({ refused: spoolFailureLogged.refusedSince }, 'the event spool is written again; accepting events');
      spoolFailureLogged = undefined;
    }
    counts.accepted += events.length;
    let serves: ServeIdRanges | undefined;
    let days = eventDays.get(spool.openName);
    // Nothing from here on throws (tell, seal): the events are kept, and their answer must say so.
    for (const event of events) {
      tell(event, false);
      days = widenDaySpan(days, event.event_time);
      const serveId = billableServeId(event);
      if (serveId !== undefined) (serves ??= billableOf(spool.openName)).add(serveId);
    }
    if (days !== undefined) eventDays.set(spool.openName, days);
    if (spool.openCount >= config.EVENT_FLUSH_ROWS) {
      sealOpenSegment();
      if (retryDelayMs === 0) void drain().catch(() => undefined);
    }
  }

  function billableOf(segmentName: string): ServeIdRanges {
    let serves = billable.get(segmentName);
    if (serves === undefined) billable.set(segmentName, (serves = new ServeIdRanges()));
    return serves;
  }

  /** Writes the turn's group with one append and answers each of its callers. */
  function writeTurn(): void {
    const group = turn;
    turn = undefined;
    if (group === undefined) return;
    let failure: unknown;
    try {
      append(group.events);
    } catch (error) {
      failure = error;
    }
    for (const settle of group.settle) {
      // One caller's throwing callback must not keep the others from their answers.
      try {
        settle(failure);
      } catch (error) {
        log.error({ err: error }, 'an event callback threw');
      }
    }
  }

  return {
    accept(events) {
      checkRoom(events.length);
      append(events);
    },
    acceptInTurn(event, settled) {
      checkRoom(1);
      if (turn === undefined) {
        turn = { events: [], settle: [] };
        // After the poll phase: every request read in this turn joins the same write.
        setImmediate(writeTurn);
      }
      turn.events.push(event);
      turn.settle.push(settled);
    },
    async writeNow(events, token) {
      if (closed) refuse(events.length, 'service is shutting down');
      if (mayAccept !== undefined && !mayAccept()) refuse(events.length, NOT_EXACTLY_ONCE);
      const body = events.map(spoolLine).join('');
      // Kept in the spool until ClickHouse answers, for a crash before it does (writeInFlight).
      let kept: string;
      try {
        kept = spool.keepInFlight(token, body);
      } catch (error) {
        log.error({ err: error }, 'cannot keep an event written at once in the spool; refused it');
        refuse(events.length, 'the event could not be stored; retry later');
      }
      // The listeners count the events within the write: a counter's read finds them in ClickHouse or in its counts, never both.
      await gate.run('write', async () => {
        try {
          const days = events.reduce<DaySpan | undefined>((span, event) => widenDaySpan(span, event.event_time), undefined);
          await ch.client.command(ofDays({ query: `${INSERT_EVENTS}\n${body}`, clickhouse_settings: insertSettings(token) }, days));
        } catch (error) {
          log.error({ err: error }, 'ClickHouse did not take an event written at once; refused it');
          // events_v1 may hold it without every view: kept, and sent again as it is (completeRefused).
          const write = keptWrite({ name: spool.keepFailed(kept), token, body, events: events.length });
          write.tries = 1;
          write.refusals = isRefusedForNow(error) ? 0 : 1;
          write.nextTryAt = Date.now() + config.EVENT_FLUSH_INTERVAL_MS;
          // Not renamed, it stays in flight, which a restart sends again unconditionally (a crash's
          // insert was never answered): one events_v1 does not hold must not be, so it goes now.
          if (write.name !== kept || (await heldByEvents(write).catch(() => true))) refused.push(write);
          else spool.forgetInFlight(kept);
          refuse(events.length, 'the event could not be stored; retry later');
        }
        spool.forgetInFlight(kept);
        counts.accepted += events.length;
        counts.written += events.length;
        for (const event of events) tell(event, true);
      });
    },
    async completeRefusedWrites(eventIds) {
      try {
        await completeRefused(new Set(eventIds));
      } catch {
        // Logged by refusedAgain.
        throw new ApiError('unavailable', 'an earlier write of these events could not be completed; retry later');
      }
    },
    onAccepted(listener) {
      listeners.push(listener);
    },
    forEachRecovered(visit) {
      // In the order they are written: the inserts left in flight first (writeSealed), then the
      // recovered segments, the first of `sealed`.
      for (const write of inFlight) forEachSpooledEvent(write.body, visit);
      for (const segment of sealed) if (recovered.has(segment.name)) forEachSpooledEvent(spool.read(segment.name), visit);
    },
    async flush() {
      writeTurn();
      sealOpenSegment();
      await drain();
    },
    readBetweenWrites(read) {
      return gate.run('read', () => read(unwritten()));
    },
    pending,
    stats,
    spoolWritable: () => spool.probeWritable(),
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      writeTurn();
      sealOpenSegment();
      if (writing) await writing.catch(() => undefined);
      try {
        await drain();
      } catch (error) {
        // The segments stay in the spool and are replayed at the next start: still nothing is lost.
        log.error({ err: error, pending: pending() }, 'could not write events at shutdown; they stay spooled');
      } finally {
        releaseSpool();
      }
    },
  };
}

/** The refusal while mayAccept() says no: the instance's events could be billed again elsewhere. */
const NOT_EXACTLY_ONCE = 'this instance cannot keep events exactly once now; retry later';

/** An insert kept in the spool (a refused one of writeNow, one a crash left in flight), with the ids that find it and its failed sends. */
interface KeptWrite extends InFlightWrite {
  eventIds: Set<string>;
  campaignIds: Set<string>;
  /** Failed sends that were due, and those ClickHouse refused for the rows themselves (refusedAgain). */
  tries: number;
  refusals: number;
  /** When the pipeline's own writes try it again, and from when a retry's try counts (ms since the epoch). */
  nextTryAt: number;
  /** A crash's insert in flight: when ClickHouse first refused it (writeInFlight). */
  refusedSince?: number;
  /** A crash's insert set aside (setAside): sent whether or not events_v1 holds its rows. */
  leftByCrash?: boolean;
  /** A crash's insert (`*.in-flight`), whose refusals are logged on change (logsRefusal). */
  fromCrash?: boolean;
  /** The code (or message) of its last refusal, logged or not. */
  loggedRefusal?: string;
}

const heldRows = z.array(z.object({ id: z.string(), cost: z.string(), revenue: z.string(), price: z.string(), unbilled: z.string(), ivt: z.string() }));
const EVENT_ID = SPOOL_COLUMNS.indexOf('event_id');
const CAMPAIGN_ID = SPOOL_COLUMNS.indexOf('campaign_id');
const COST = SPOOL_COLUMNS.indexOf('cost_nanos');
const REVENUE = SPOOL_COLUMNS.indexOf('revenue_nanos');
const PRICE = SPOOL_COLUMNS.indexOf('price_nanos');
const UNBILLED = SPOOL_COLUMNS.indexOf('unbilled');
const IVT = SPOOL_COLUMNS.indexOf('ivt');

/** What an event was judged (a line older releases spooled lacks the last columns: their defaults). */
function judged(...values: unknown[]): string {
  return values.map(String).join('|');
}

function keptWrite(write: InFlightWrite): KeptWrite {
  const eventIds = new Set<string>();
  const campaignIds = new Set<string>();
  for (const line of write.body.split('\n')) {
    const row = spooledRow(line);
    if (row === undefined) continue;
    eventIds.add(String(row[EVENT_ID]));
    campaignIds.add(String(row[CAMPAIGN_ID]));
  }
  return { ...write, eventIds, campaignIds, tries: 0, refusals: 0, nextTryAt: 0 };
}

/** ClickHouse's default min_insert_block_size_rows: an INSERT ... SELECT of fewer rows is one block. */
const ONE_INSERT_BLOCK_ROWS = 1_048_449;

const INSERT_EVENTS_SELECT = `INSERT INTO events_v1 (${SPOOL_COLUMNS.join(', ')})`;
const INSERT_EVENTS = `${INSERT_EVENTS_SELECT} FORMAT JSONCompactEachRow`;

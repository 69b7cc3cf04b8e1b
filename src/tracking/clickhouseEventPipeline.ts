import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { ClickHouse } from '../store/clickhouse.js';
import { ApiError } from '../http/errors.js';
import type { EventPipeline } from './eventPipeline.js';
import type { TrackedEvent } from './trackedEvent.js';
import { EventSpool, SPOOL_COLUMNS, type SealedSegment } from './eventSpool.js';

export interface EventPipelineOptions {
  config: Pick<Config, 'DATA_DIR' | 'EVENT_FLUSH_ROWS' | 'EVENT_FLUSH_INTERVAL_MS' | 'EVENT_BUFFER_MAX_ROWS' | 'EVENT_SPOOL_FSYNC'>;
  ch: ClickHouse;
  log: FastifyBaseLogger;
}

const MAX_RETRY_DELAY_MS = 30_000;

/**
 * Buffers accepted events (durably, in the spool) and writes them to ClickHouse in batches: on
 * EVENT_FLUSH_ROWS rows or every EVENT_FLUSH_INTERVAL_MS, and on close. A failed write is retried
 * with backoff for as long as it takes; nothing is ever dropped. When more than EVENT_BUFFER_MAX_ROWS
 * are waiting, accept() refuses (503) instead of growing without limit.
 */
export async function createClickHouseEventPipeline({ config, ch, log }: EventPipelineOptions): Promise<EventPipeline> {
  const spool = new EventSpool(path.join(config.DATA_DIR, 'spool'), config.EVENT_SPOOL_FSYNC);
  const sealed: SealedSegment[] = spool.recover();
  const listeners: Array<(event: TrackedEvent) => void> = [];
  let sealedCount = sealed.reduce((sum, segment) => sum + segment.events, 0);
  let writing: Promise<void> | undefined;
  let retryDelayMs = 0;
  let closed = false;

  if (sealed.length > 0) log.info({ segments: sealed.length, events: sealedCount }, 'replaying spooled events');

  const pending = () => sealedCount + spool.openCount;

  function sealOpenSegment(): void {
    const segment = spool.seal();
    if (!segment) return;
    sealed.push(segment);
    sealedCount += segment.events;
  }

  async function writeSealed(): Promise<void> {
    while (sealed.length > 0) {
      const segment = sealed[0]!;
      // The segment file is the insert's body as it is: ClickHouse parses it, Node never re-encodes it.
      await ch.client.command({
        query: `${INSERT_EVENTS}\n${spool.read(segment.name)}`,
        clickhouse_settings: {
          insert_deduplication_token: segment.name,
          deduplicate_blocks_in_dependent_materialized_views: 1,
          // Segments spooled by an older release list fewer (leading) columns: the rest take their defaults.
          input_format_json_compact_allow_variable_number_of_columns: 1,
        },
      });
      spool.remove(segment.name);
      sealed.shift();
      sealedCount -= segment.events;
    }
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

  async function tick(): Promise<void> {
    sealOpenSegment();
    if (sealed.length === 0) return;
    try {
      await drain();
    } catch (error) {
      retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(config.EVENT_FLUSH_INTERVAL_MS, retryDelayMs * 2));
      log.error({ err: error, pending: pending(), retryInMs: retryDelayMs }, 'writing events to ClickHouse failed; will retry');
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
  schedule(sealed.length > 0 ? 0 : config.EVENT_FLUSH_INTERVAL_MS);

  return {
    accept(events) {
      if (closed) throw new ApiError('unavailable', 'service is shutting down');
      if (pending() + events.length > config.EVENT_BUFFER_MAX_ROWS) {
        log.warn({ pending: pending() }, 'event buffer is full; refusing events');
        throw new ApiError('unavailable', 'event buffer is full; retry later');
      }
      spool.append(events);
      for (const event of events) for (const listener of listeners) listener(event);
      if (spool.openCount >= config.EVENT_FLUSH_ROWS) {
        sealOpenSegment();
        if (retryDelayMs === 0) void drain().catch(() => undefined);
      }
    },
    onAccepted(listener) {
      listeners.push(listener);
    },
    async flush() {
      sealOpenSegment();
      await drain();
    },
    pending,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      sealOpenSegment();
      if (writing) await writing.catch(() => undefined);
      try {
        await drain();
      } catch (error) {
        // The segments stay in the spool and are replayed at the next start: still nothing is lost.
        log.error({ err: error, pending: pending() }, 'could not write events at shutdown; they stay spooled');
      }
    },
  };
}

const INSERT_EVENTS = `INSERT INTO events_v1 (${SPOOL_COLUMNS.join(', ')}) FORMAT JSONCompactEachRow`;

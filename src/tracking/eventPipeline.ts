import type { TrackedEvent } from './trackedEvent.js';

/**
 * Where every accepted event goes. `accept` returns only once the events are durable on this
 * machine (the spool), so a 2xx sent after it never loses them; they reach ClickHouse in batches.
 */
export interface EventPipeline {
  /** Throws ApiError('unavailable') when the buffer is full; the caller answers 503 and nothing is stored. */
  accept(events: TrackedEvent[]): void;
  /** Called synchronously for each accepted event (pacing and certification watch these). */
  onAccepted(listener: (event: TrackedEvent) => void): void;
  /** Writes everything accepted so far to ClickHouse. */
  flush(): Promise<void>;
  /** Accepted events not yet in ClickHouse. */
  pending(): number;
  /** Flushes and stops the timer; the pipeline accepts nothing after. */
  close(): Promise<void>;
}

import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TrackedEvent } from './trackedEvent.js';

/**
 * The columns of events_v1 in the order each spool line lists them: a spool file is a ready
 * ClickHouse JSONCompactEachRow body, sent as it is, with no parsing or re-encoding in Node.
 */
export const SPOOL_COLUMNS = [
  'event_id', 'event_time', 'type', 'source', 'serve_id', 'campaign_id', 'line_item_id', 'creative_id',
  'placement_id', 'publisher_id', 'price_model', 'cost_nanos', 'revenue_nanos', 'click_id', 'ip', 'ip_class',
  'ip_network', 'user_agent', 'ivt', 'country', 'user_key', 'fetch_dest', 'fetch_mode', 'fetch_site',
] as const satisfies ReadonlyArray<keyof TrackedEvent>;

/** A closed spool file waiting to be written to ClickHouse. */
export interface SealedSegment {
  /** File name; also the ClickHouse insert_deduplication_token, so a re-sent segment counts once. */
  name: string;
  events: number;
}

/**
 * The local append-only log that makes an accepted event survive a crash. Each accepted event is
 * written to the open segment with one write(2) before the caller answers 2xx: once the kernel has
 * it, a kill -9 of the process cannot lose it (with fsync, a power loss cannot either). A segment is
 * deleted only after ClickHouse has acknowledged its insert; segments left by a crash are replayed
 * at start.
 */
export class EventSpool {
  private fd: number | undefined;
  private segmentName = '';
  private segmentEvents = 0;

  constructor(
    private readonly directory: string,
    private readonly fsync: boolean,
  ) {
    mkdirSync(directory, { recursive: true });
  }

  /** Segments a previous process left behind, oldest first. */
  recover(): SealedSegment[] {
    return readdirSync(this.directory)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .map((name) => ({ name, events: countLines(this.read(name)) }))
      .filter((segment) => {
        if (segment.events > 0) return true;
        this.remove(segment.name);
        return false;
      });
  }

  append(events: TrackedEvent[]): void {
    if (this.fd === undefined) this.open();
    let lines = '';
    for (const event of events) lines += spoolLine(event);
    writeSync(this.fd!, lines);
    if (this.fsync) fsyncSync(this.fd!);
    this.segmentEvents += events.length;
  }

  get openCount(): number {
    return this.segmentEvents;
  }

  /** Closes the open segment and hands it over for writing; undefined when it holds nothing. */
  seal(): SealedSegment | undefined {
    if (this.fd === undefined) return undefined;
    closeSync(this.fd);
    const sealed = { name: this.segmentName, events: this.segmentEvents };
    this.fd = undefined;
    this.segmentEvents = 0;
    return sealed;
  }

  /**
   * A segment's complete lines. Only a power loss can leave a torn last line (its request was
   * never answered): it is cut off, so the body ClickHouse receives is always well-formed.
   */
  read(name: string): string {
    const text = readFileSync(path.join(this.directory, name), 'utf8');
    return text.slice(0, text.lastIndexOf('\n') + 1);
  }

  remove(name: string): void {
    unlinkSync(path.join(this.directory, name));
  }

  private open(): void {
    // Names sort by creation time, so recovery replays segments in the order they were written.
    this.segmentName = `${Date.now().toString().padStart(15, '0')}-${randomBytes(6).toString('hex')}.jsonl`;
    this.fd = openSync(path.join(this.directory, this.segmentName), 'a', 0o600);
  }
}

/** ClickHouse parses 'YYYY-MM-DD hh:mm:ss.sss' in the column's zone (UTC) unambiguously. */
function spoolLine(event: TrackedEvent): string {
  const row: unknown[] = SPOOL_COLUMNS.map((column) => event[column]);
  row[1] = new Date(event.event_time).toISOString().replace('T', ' ').replace('Z', '');
  return JSON.stringify(row) + '\n';
}

function countLines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TrackedEvent } from './trackedEvent.js';

/** A closed spool file and its events, waiting to be written to ClickHouse. */
export interface SealedSegment {
  /** File name; also the ClickHouse insert_deduplication_token, so a re-sent segment counts once. */
  name: string;
  events: TrackedEvent[];
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
  private segmentEvents: TrackedEvent[] = [];

  constructor(
    private readonly directory: string,
    private readonly fsync: boolean,
  ) {
    mkdirSync(directory, { recursive: true });
  }

  /** Segments a previous process left behind, oldest first. A torn last line (power loss mid-write) is skipped. */
  recover(): SealedSegment[] {
    return readdirSync(this.directory)
      .filter((name) => name.endsWith('.ndjson'))
      .sort()
      .map((name) => ({ name, events: parseSegment(readFileSync(path.join(this.directory, name), 'utf8')) }))
      .filter((segment) => {
        if (segment.events.length > 0) return true;
        this.remove(segment.name);
        return false;
      });
  }

  append(events: TrackedEvent[]): void {
    if (this.fd === undefined) this.open();
    let lines = '';
    for (const event of events) lines += JSON.stringify(event) + '\n';
    writeSync(this.fd!, lines);
    if (this.fsync) fsyncSync(this.fd!);
    for (const event of events) this.segmentEvents.push(event);
  }

  get openCount(): number {
    return this.segmentEvents.length;
  }

  /** Closes the open segment and hands it over for writing; undefined when it holds nothing. */
  seal(): SealedSegment | undefined {
    if (this.fd === undefined) return undefined;
    closeSync(this.fd);
    const sealed = { name: this.segmentName, events: this.segmentEvents };
    this.fd = undefined;
    this.segmentEvents = [];
    return sealed;
  }

  remove(name: string): void {
    unlinkSync(path.join(this.directory, name));
  }

  private open(): void {
    // Names sort by creation time, so recovery replays segments in the order they were written.
    this.segmentName = `${Date.now().toString().padStart(15, '0')}-${randomBytes(6).toString('hex')}.ndjson`;
    this.fd = openSync(path.join(this.directory, this.segmentName), 'a', 0o600);
  }
}

function parseSegment(text: string): TrackedEvent[] {
  const events: TrackedEvent[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      events.push(JSON.parse(line) as TrackedEvent);
    } catch {
      // Only the last line can be torn, and only by a power loss: its request was never answered.
    }
  }
  return events;
}

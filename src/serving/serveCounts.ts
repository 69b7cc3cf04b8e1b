import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ClickHouse } from '../store/clickhouse.js';
import { declaredWrite } from '../store/writtenEventDays.js';
import { MS_PER_DAY, utcDay, utcDate } from '../utcDays.js';

interface Counts {
  requests: number;
  filled: number;
}

/**
 * Ad requests and filled ones per placement and UTC day, for publisher and operator reporting.
 * The serve path only bumps two numbers in a map (no I/O, no allocation after a placement's first
 * request of the day). `flush` moves the counts to a file in DATA_DIR/serve-counts (one row per
 * placement and day, fsynced when EVENT_SPOOL_FSYNC is on) and then to ClickHouse, deleting the file
 * only once ClickHouse has it. A file left by a crash or a ClickHouse outage is sent by a later
 * flush, with its name as insert_deduplication_token so a re-sent file counts once. A file that
 * cannot be written (a full disk) leaves its counts in memory for the next flush. What a crash can
 * lose is the counts still in memory: the last flush interval's, or all since the disk filled.
 */
export class ServeCounts {
  private counts = new Map<number, Map<string, Counts>>();

  constructor(
    private readonly ch: ClickHouse,
    private readonly directory: string,
    private readonly fsync: boolean,
    /** false (SERVE_COUNTS=false): count nothing, to measure what counting costs the serve path. */
    private readonly enabled = true,
  ) {
    mkdirSync(directory, { recursive: true });
  }

  /**
   * One serve call on a placement of the calling publisher; `filled` when an ad was answered. `nowMs`
   * is the serve's own clock reading: counted on the day the serve signed its ad, with no clock
   * read of its own.
   */
  count(placementId: string, filled: boolean, nowMs: number): void {
    if (!this.enabled) return;
    const day = utcDay(nowMs);
    let placements = this.counts.get(day);
    if (placements === undefined) this.counts.set(day, (placements = new Map()));
    const counts = placements.get(placementId);
    if (counts === undefined) placements.set(placementId, { requests: 1, filled: filled ? 1 : 0 });
    else {
      counts.requests += 1;
      if (filled) counts.filled += 1;
    }
  }

  /**
   * Writes the counts so far to a file, then every waiting file to ClickHouse. When the file cannot
   * be written (a full disk), the counts stay in memory for the next flush and the waiting files are
   * still sent (which frees their space); the write's error is thrown after.
   */
  async flush(): Promise<void> {
    let unwritten: unknown;
    try {
      this.writeFile();
    } catch (error) {
      unwritten = error;
    }
    for (const name of readdirSync(this.directory).filter((file) => file.endsWith('.jsonl')).sort()) {
      const body = readFileSync(path.join(this.directory, name), 'utf8');
      // A torn last line (power loss while writing) is cut off; its counts are lost with the power.
      const complete = body.slice(0, body.lastIndexOf('\n') + 1);
      if (complete !== '') {
        // Serve counts are no event: what events_v1 and its views hold is unchanged (writtenEventDays.ts).
        const insert = {
          query: `INSERT INTO placement_serve_counts_v1 (day, placement_id, requests, filled) FORMAT JSONEachRow\n${complete}`,
          clickhouse_settings: { insert_deduplication_token: name },
        };
        await this.ch.client.command(declaredWrite(this.ch.writtenEventDays, insert, null));
      }
      unlinkSync(path.join(this.directory, name));
    }
    if (unwritten !== undefined) throw unwritten;
  }

  /**
   * Moves the counts to a new file. The map is emptied only once the file is whole: a write that
   * fails (ENOSPC) removes its partial file, so none of its lines is ever sent, and leaves the counts
   * where they were (at most a row per placement and day, so a long outage holds no more memory).
   * Synchronous, so no serve counts in between.
   */
  private writeFile(): void {
    if (this.counts.size === 0) return;
    let lines = '';
    for (const [day, placements] of this.counts) {
      const date = utcDate(day * MS_PER_DAY);
      for (const [placementId, { requests, filled }] of placements) {
        lines += `${JSON.stringify({ day: date, placement_id: placementId, requests, filled })}\n`;
      }
    }
    // Names sort by creation time, so files are sent in the order they were written.
    const file = path.join(this.directory, `${Date.now().toString().padStart(15, '0')}-${randomBytes(6).toString('hex')}.jsonl`);
    const bytes = Buffer.from(lines);
    const fd = openSync(file, 'a', 0o600);
    try {
      // A nearly full disk takes part of a write; the rest is written, or its ENOSPC thrown, by the next call.
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
      if (this.fsync) fsyncSync(fd);
    } catch (error) {
      ftruncateSync(fd, 0);
      closeSync(fd);
      unlinkSync(file);
      throw error;
    }
    closeSync(fd);
    this.counts = new Map();
  }
}

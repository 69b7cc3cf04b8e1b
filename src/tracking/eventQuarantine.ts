import { appendFileSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Where spool lines that ClickHouse cannot parse go (DATA_DIR/quarantine/<segment>), as they were, so
 * that one torn or corrupt line never holds back the events around it and an operator can inspect,
 * repair and re-import it. Each file keeps the spool's format: a repaired file is an insert body.
 * Inserts written at once that ClickHouse refused every time they were sent again go here too (takeWrite).
 */
export class EventQuarantine {
  constructor(readonly directory: string) {}

  /** Appends and syncs before returning: the caller deletes the segment the line came from right after. */
  keep(segmentName: string, line: string): string {
    mkdirSync(this.directory, { recursive: true });
    const file = path.join(this.directory, segmentName);
    appendFileSync(file, line.endsWith('\n') ? line : `${line}\n`, { mode: 0o600, flush: true });
    return file;
  }

  /**
   * Writes a segment's unparsable lines as its quarantine file, whole, and syncs it: the same lines
   * again (a replay after a crash before the segment was rewritten without them) give the same file.
   */
  keepLines(segmentName: string, lines: string): string {
    mkdirSync(this.directory, { recursive: true });
    const file = path.join(this.directory, segmentName);
    writeFileSync(file, lines, { mode: 0o600, flush: true });
    return file;
  }

  /** Where a quarantined write goes once `adsvc quarantine complete` made the store whole with it (quarantinedWrite.ts). */
  completedPath(name: string): string {
    return path.join(this.directory, 'completed', name);
  }

  /** Where that command keeps what it planned and did until the writes are completed: a re-run after a crash follows it. */
  get journalPath(): string {
    return path.join(this.directory, 'completing', 'plan.json');
  }

  /** The quarantined file of that name, when it is still here. */
  held(name: string): string | undefined {
    const file = path.join(this.directory, name);
    return statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
  }

  /** Moves a completed write out of the quarantine, so nothing sends it again. */
  complete(name: string): string {
    const moved = this.completedPath(name);
    mkdirSync(path.dirname(moved), { recursive: true });
    renameSync(path.join(this.directory, name), moved);
    return moved;
  }

  /**
   * Moves a kept insert ClickHouse refuses every time (spool/*.failed-write) here under its own
   * name, as it was: its body and, last, its token line. Throws when it cannot be moved.
   */
  takeWrite(file: string): string {
    mkdirSync(this.directory, { recursive: true });
    const moved = path.join(this.directory, path.basename(file));
    renameSync(file, moved);
    return moved;
  }
}

import { closeSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { EventSpool } from '../../src/tracking/eventSpool.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function openSpool(): { spool: EventSpool; directory: string } {
  const directory = mkdtempSync(path.join(tmpdir(), 'event-spool-'));
  directories.push(directory);
  return { spool: new EventSpool(directory, false), directory };
}

/**
 * A real fault on the open segment's descriptor: it is closed under the spool, so every later
 * write, ftruncate and close of it fails with EBADF, as the kernel answers them. Called in the same
 * synchronous step as the spool's next call, so the number cannot be reused by another open between.
 */
function closeUnderSpool(directory: string, segmentName: string): void {
  const segment = path.join(directory, segmentName);
  const fd = readdirSync('/proc/self/fd').find((entry) => {
    try {
      return readlinkSync(`/proc/self/fd/${entry}`) === segment;
    } catch {
      return false;
    }
  });
  if (fd === undefined) throw new Error(`no descriptor is open on ${segment}`);
  closeSync(Number(fd));
}

describe.skipIf(process.platform !== 'linux')('EventSpool when its segment cannot be closed', () => {
  it('seal() still hands the segment over when its close fails, and nothing stays counted as open', () => {
    const { spool, directory } = openSpool();
    spool.append([sampleEvent(), sampleEvent()]);
    const name = spool.openName;
    closeUnderSpool(directory, name);
    expect(spool.seal()).toEqual([{ name, events: 2 }]);
    expect(spool.openCount).toBe(0);
    expect(spool.read(name).split('\n')).toHaveLength(3);
  });

  it('an append whose write, cut and close all fail answers unavailable, and the next seal() hands over the segment it closed', () => {
    const { spool, directory } = openSpool();
    spool.append([sampleEvent()]);
    const name = spool.openName;
    closeUnderSpool(directory, name);
    let refused: unknown;
    try {
      spool.append([sampleEvent()]);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);
    expect(spool.openCount).toBe(1);
    expect(spool.seal()).toEqual([{ name, events: 1 }]);
    expect(spool.openCount).toBe(0);
    // A later append opens a segment of its own.
    spool.append([sampleEvent()]);
    expect(spool.openName).not.toBe(name);
    expect(spool.seal()).toEqual([{ name: spool.openName, events: 1 }]);
  });
});

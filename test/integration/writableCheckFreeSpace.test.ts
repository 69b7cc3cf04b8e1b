import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { openWritableCheck } from '../../src/store/writableCheck.js';
import { eventually } from '../helpers/eventually.js';
import { canMount, fillDisk, mountTmpfs, notRootMessage } from '../helpers/tmpfs.js';

const MIB = 1024 * 1024;
const FLOOR = 32 * MIB;

/** A check of a file on a fresh tmpfs of `bytes`; everything undone when the test ends. */
function checkOnTmpfs(bytes: number) {
  const directory = path.join(mkdtempSync(path.join(inject('testRoot'), 'writable-check-')), 'fs');
  const unmount = mountTmpfs(directory, bytes);
  const file = path.join(directory, 'PG_VERSION');
  writeFileSync(file, '17\n');
  const check = openWritableCheck(file, FLOOR);
  onTestFinished(() => {
    check.close();
    unmount();
  });
  return { directory, check };
}

describe.skipIf(!canMount)('the writable check\'s free-space floor (real tmpfs)', () => {
  it('near the floor asks the file system at every statement: a fill is seen by the very next check', () => {
    // 64 MB free is within 4 floors: no answer is kept.
    const { directory, check } = checkOnTmpfs(64 * MIB);
    expect(check.shortOfSpace()).toBeUndefined();
    fillDisk(directory, 8 * MIB);
    expect(check.shortOfSpace()).toMatch(/has [0-9.]+ MB free, less than the 32\.0 MB/);
  });

  it('far above the floor keeps an answer only briefly: a fill is seen by a later check', async () => {
    // 256 MB free: the answer is kept about 100 ms (statfs is a round trip on NFS and FUSE), then asked again.
    const { directory, check } = checkOnTmpfs(256 * MIB);
    expect(check.shortOfSpace()).toBeUndefined();
    fillDisk(directory, 8 * MIB);
    await eventually(async () => check.shortOfSpace(), 'the check to see the fill', 5_000, 20);
  });
});

if (!canMount) console.warn(notRootMessage);

import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIN_CLICK_DELAY_MS } from '../../src/tracking/linkTracker.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { readerAddress } from '../helpers/trackingFixtures.js';
import { cpcServe, startTrackingChild, storedClicks, trackedDataDir } from '../helpers/trackingChild.js';

/**
 * try45 F1: a click is click_too_fast under MIN_CLICK_DELAY_MS after its serve's first valid
 * impression, and both were wall-clock times: a clock stepped back by N seconds stored the real
 * clicks of the next N seconds click_too_fast, unbilled (20 of 20 clicks 2.5 s after their pixels
 * after a 120 s step). `adsvc serve` runs under libfaketime, whose offset the test changes while it
 * runs (re-read at every reading of the clock): the wall clock steps, the monotonic one does not
 * (FAKETIME_DONT_FAKE_MONOTONIC), as with an NTP step or `date -s`.
 */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const STEP = '300';
const SERVES = 10;
const PRICE_NANOS = 1_000_000_000;

/** A wall clock the child reads its offset from, starting at libfaketime's "+0". */
function steppableClock() {
  const file = path.join(tempDirectory('faketime-'), 'offset');
  writeFileSync(file, '+0');
  return {
    env: { LD_PRELOAD: LIBFAKETIME, FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
    /** Steps the child's wall clock to `offset` seconds from the real time ("+0", "-300"). */
    step: (offset: string) => writeFileSync(file, offset),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!existsSync(LIBFAKETIME))('the click delay rule on a stepped clock (adsvc serve under libfaketime)', () => {
  it('bills the clicks made over a second after their pixels across a step back, and still refuses a click made at once after its pixel across a step either way', async () => {
    const { dataDir, item } = await trackedDataDir();
    const clock = steppableClock();
    const child = await startTrackingChild(dataDir, clock.env);
    const serve = () => ({ ...cpcServe(item, dataDir), reader: readerAddress() });

    const slow = Array.from({ length: SERVES }, serve);
    for (const { token, reader } of slow) expect(await child.link('pixel', token, reader)).toBe(200);
    const pixelsDoneAt = performance.now();
    clock.step(`-${STEP}`);
    await sleep(MIN_CLICK_DELAY_MS + 300 - (performance.now() - pixelsDoneAt));
    for (const { token, reader } of slow) expect(await child.link('click', token, reader)).toBe(302);

    // A click at once after its pixel, the clock stepped forward, then back, between them.
    const fast = [serve(), serve()];
    for (const [index, { token, reader }] of fast.entries()) {
      expect(await child.link('pixel', token, reader)).toBe(200);
      clock.step(index === 0 ? '+0' : `-${STEP}`);
      expect(await child.link('click', token, reader)).toBe(302);
    }
    await child.stop();

    const clicks = new Map((await storedClicks(dataDir, item.lineItemId)).map((click) => [click.serve_id, [click.ivt, click.unbilled, click.cost_nanos]]));
    expect(slow.map(({ serveId }) => clicks.get(serveId))).toEqual(slow.map(() => ['', '', PRICE_NANOS]));
    expect(fast.map(({ serveId }) => clicks.get(serveId))).toEqual(fast.map(() => ['click_too_fast', '', 0]));
  }, 180_000);

  it("bills a click whose impression time, learned from ClickHouse, is later than the click by a clock stepped back across a restart: the clocks' disagreement, not speed", async () => {
    const { dataDir, item } = await trackedDataDir();
    const clock = steppableClock();
    const before = await startTrackingChild(dataDir, clock.env);
    const serves = Array.from({ length: SERVES }, () => ({ ...cpcServe(item, dataDir), reader: readerAddress() }));
    for (const { token, reader } of serves) expect(await before.link('pixel', token, reader)).toBe(200);
    // Stopped (its spool written to ClickHouse), its clock stepped back, started again: it knows none of the serves.
    await before.stop();
    clock.step(`-${STEP}`);
    const after = await startTrackingChild(dataDir, clock.env);
    for (const { token, reader } of serves) expect(await after.link('click', token, reader)).toBe(302);
    await after.stop();

    const clicks = new Map((await storedClicks(dataDir, item.lineItemId)).map((click) => [click.serve_id, [click.ivt, click.unbilled, click.cost_nanos]]));
    expect(serves.map(({ serveId }) => clicks.get(serveId))).toEqual(serves.map(() => ['', '', PRICE_NANOS]));
  }, 180_000);
});

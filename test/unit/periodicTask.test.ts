import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { startPeriodicTask } from '../../src/serving/periodicTask.js';

describe('startPeriodicTask runNow', () => {
  it('runs once more after the run in progress, however many ask meanwhile', async () => {
    const releases: Array<() => void> = [];
    let runs = 0;
    const task = startPeriodicTask(
      'test',
      3_600_000,
      () => {
        runs += 1;
        return new Promise<void>((resolve) => releases.push(resolve));
      },
      pino({ level: 'silent' }),
    );
    const first = task.runNow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(1);
    // Asked while the first run is in progress: one run after it serves them all.
    const asked = [task.runNow(), task.runNow(), task.runNow()];
    releases.shift()!();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(2);
    // Asked while that run is in progress: it started before them, so they need a run of their own.
    const later = task.runNow();
    releases.shift()!();
    await Promise.all(asked);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toBe(3);
    releases.shift()!();
    await later;
    expect(runs).toBe(3);
    await task.stop();
  });
});

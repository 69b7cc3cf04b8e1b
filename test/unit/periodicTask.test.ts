import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { startPeriodicTask } from '../../src/periodicTask.js';

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

describe('startPeriodicTask while its run keeps failing', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('logs the first failure with its stack, then at most once a minute with a count, and once when it recovers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const lines: { level: number; msg: string; failures?: number; err?: { stack?: string } }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    let failing = true;
    // As the ad index refresh during a PostgreSQL outage: a tick every 250 ms, each one failing.
    const task = startPeriodicTask(
      'ad index refresh',
      250,
      async () => {
        if (failing) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
      pino({ level: 'info' }, sink),
    );
    await vi.advanceTimersByTimeAsync(150_000);
    failing = false;
    await vi.advanceTimersByTimeAsync(1_000);
    await task.stop();
    await new Promise((resolve) => setImmediate(resolve));

    // 600 failed runs in 150 s: the first with its stack, then one line a minute, then the recovery.
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [50, 'ad index refresh failed; retrying at the next tick'],
      [50, 'ad index refresh still failing (241 failures in a row); retrying at the next tick'],
      [50, 'ad index refresh still failing (481 failures in a row); retrying at the next tick'],
      [30, 'ad index refresh recovered after 600 failures in a row'],
    ]);
    expect(lines[0]!.err?.stack).toContain('ECONNREFUSED');
    expect(lines[1]!.err).toBeUndefined();
    expect(lines[3]!.failures).toBe(600);
  });
});

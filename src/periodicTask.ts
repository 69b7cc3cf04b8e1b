import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

export interface PeriodicTask {
  /**
   * Runs the task now (after the run in progress, if any) and resolves when it is done. Calls made
   * while a run waits to start share that run: it starts after each of them.
   */
  runNow(): Promise<void>;
  /** Stops the schedule and waits for the run in progress, so no query reaches a closed store. */
  stop(): Promise<void>;
}

/** While a task keeps failing, how often it says so again (the first failure is logged at once). */
const REPEAT_FAILURE_LOG_MS = 60_000;

/**
 * Runs `run` every `intervalMs`, one run at a time, never overlapping. A failing run is retried at
 * the next tick: background work must never take the process down. The first failure is logged with
 * its stack; while the task keeps failing (a store outage, at 4 ticks a second for the ad index) it
 * says so at most once a minute with the count of failures, and once, at info, when it recovers:
 * an outage of an hour must not write megabytes of the same stack.
 */
export function startPeriodicTask(name: string, intervalMs: number, run: () => Promise<void>, log: FastifyBaseLogger): PeriodicTask {
  /** Failures in a row, and when a failure was last logged. */
  let failures = 0;
  let lastLoggedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  /** The run queued behind the one in progress, until it starts. */
  let waiting: Promise<void> | undefined;
  let stopped = false;

  const runOnce = (): Promise<void> => {
    if (waiting) return waiting;
    const previous = running ?? Promise.resolve();
    const next = previous.then(async () => {
      waiting = undefined;
      if (stopped) return;
      try {
        await run();
      } catch (error) {
        failures += 1;
        if (failures === 1) {
          log.error({ err: error, task: name }, `${name} failed; retrying at the next tick`);
          lastLoggedAt = Date.now();
        } else if (Date.now() - lastLoggedAt >= REPEAT_FAILURE_LOG_MS) {
          const message = error instanceof Error ? error.message : String(error);
          log.error({ task: name, failures, error: message }, `${name} still failing (${failures} failures in a row); retrying at the next tick`);
          lastLoggedAt = Date.now();
        }
        return;
      }
      if (failures > 0) log.info({ task: name, failures }, `${name} recovered after ${failures} failures in a row`);
      failures = 0;
    });
    running = next;
    waiting = next;
    void next.finally(() => {
      if (running === next) running = undefined;
    });
    return next;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void runOnce().finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();

  return {
    runNow: runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * Runs `task` once `delayMs` after `app` listens, besides its schedule, whose first run comes one
 * interval after the start: an hourly task on an instance restarted more often would never run.
 * Not on the start's path (the listen and /healthz do not wait for it) nor under its first requests.
 */
export function runSoonAfterListening(app: FastifyInstance, task: Pick<PeriodicTask, 'runNow'>, delayMs: number): void {
  let first: NodeJS.Timeout | undefined;
  app.addHook('onListen', (done) => {
    first = setTimeout(() => void task.runNow(), delayMs).unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearTimeout(first);
    done();
  });
}

import type { FastifyBaseLogger } from 'fastify';

export interface PeriodicTask {
  /**
   * Runs the task now (after the run in progress, if any) and resolves when it is done. Calls made
   * while a run waits to start share that run: it starts after each of them.
   */
  runNow(): Promise<void>;
  /** Stops the schedule and waits for the run in progress, so no query reaches a closed store. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs`, one run at a time, never overlapping. A failing run is logged and
 * retried at the next tick: background work must never take the process down.
 */
export function startPeriodicTask(name: string, intervalMs: number, run: () => Promise<void>, log: FastifyBaseLogger): PeriodicTask {
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
        log.error({ err: error, task: name }, `${name} failed; retrying at the next tick`);
      }
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

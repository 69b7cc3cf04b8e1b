/** The callbacks waiting for the end of this turn, in the order they came; undefined when none waits. */
let waiting: Array<() => void> | undefined;
let turnEnd: Promise<void> | undefined;

/**
 * Calls `callback` once the event loop has run every I/O callback of the current turn (the check
 * phase, setImmediate), one timer shared by every caller of the turn, in the order they called. A
 * route that answers from it writes its answer together with the answers of every other request
 * read in the same turn, instead of one write between the handling of each. `callback` must not
 * throw: the callbacks after it would not run.
 *
 * Why: on a loaded server the socket write is the largest single cost of a small answer (a third
 * of a serve's CPU on the 2-core bench VM), most of it, as far as profiles show, waking a client
 * that went idle waiting for it. Written back to back, the first answer of a turn wakes the clients and the rest
 * find them awake. Serve throughput went up by 13-30% in side-by-side runs, with a lower p50 and
 * p99 (bench/README.md, "Serve: session 24"). A callback rather than a promise: a promise and its
 * reaction per answer cost the direct serve about 1 % of its CPU (bench/README.md, "Serve: session 29").
 */
export function atEndOfTurn(callback: () => void): void {
  if (waiting === undefined) {
    waiting = [callback];
    setImmediate(runWaiting);
  } else waiting.push(callback);
}

function runWaiting(): void {
  const callbacks = waiting!;
  // Callers from here on wait for the next turn's end.
  waiting = undefined;
  for (const callback of callbacks) callback();
}

/** atEndOfTurn as a promise, one for every caller of a turn (for an async route). */
export function endOfTurn(): Promise<void> {
  turnEnd ??= new Promise((resolve) =>
    atEndOfTurn(() => {
      turnEnd = undefined;
      resolve();
    }),
  );
  return turnEnd;
}

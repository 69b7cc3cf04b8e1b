import { hostname } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * A process that cannot go on must end, so that its supervisor (systemd's `Restart=`, a container's
 * restart policy) starts it again and the spool is replayed (docs/failure-modes.md). Embedded
 * ClickHouse broke that: chdb installs ClickHouse's fatal-signal handlers (SIGABRT, SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE) in this process when its engine starts, and they hand the signal to a thread the
 * library never runs and put the faulting thread to sleep. After V8's "heap out of memory" (an
 * abort), a failed native assertion or a segfault the process stayed alive with its port open,
 * answering nothing, until someone killed it.
 * - SIGABRT: a listener makes node's handler replace chdb's. abort() ends the process when a handler
 *   returns (it raises SIGABRT again with the default action); one sent with kill(1) ends it from the
 *   listener, the same way.
 * - The other fatal signals cannot run a JavaScript listener safely, and an event loop that stops
 *   turning for any reason is as dead: a watchdog thread ends the process with SIGKILL once the main
 *   thread has not beaten for `timeoutMs` (0: no watchdog). A SIGKILL is a crash the service is
 *   built to survive: every answered event is in the spool.
 * Started once the stores are open, after chdb's handlers are in place.
 */
export function startProcessWatchdog(timeoutMs: number): void {
  const passAbortOn = () => {
    // Without a listener node puts back the default action, and the second SIGABRT ends the process.
    process.off('SIGABRT', passAbortOn);
    process.kill(process.pid, 'SIGABRT');
  };
  process.on('SIGABRT', passAbortOn);
  if (timeoutMs === 0) return;

  setInterval(() => Atomics.add(shared, BEATS, 1), BEAT_MS).unref();
  const watchdog = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { shared, missesAllowed: Math.ceil(timeoutMs / BEAT_MS), warnMisses: STALL_WARN_MISSES, timeoutMs, pid: process.pid, hostname: hostname() },
  });
  watchdog.unref();
}

/**
 * How many times the main thread went STALL_WARN_MISSES beats (5 s) without turning its event loop
 * since the watchdog started (0 without one): `adsvc_main_thread_stalls_total`. A stall that ends
 * before WATCHDOG_TIMEOUT_MS is seen here and in one warning line, so an operator learns of a
 * thread nearing the limit before the watchdog kills it.
 */
export function mainThreadStalls(): number {
  return Atomics.load(shared, STALLS);
}

const BEAT_MS = 1000;
/** Missed beats after which a stall is warned of and counted: 5 s, well past any turn measured (configuration.md). */
const STALL_WARN_MISSES = 5;
/** Slots of the memory the main thread and its watchdog share: the main thread's beats, the stalls the watchdog counted. */
const [BEATS, STALLS] = [0, 1];
const shared = new Int32Array(new SharedArrayBuffer(8));

/**
 * The watchdog thread, in plain JavaScript (the service also runs from its TypeScript sources, where
 * no compiled worker file exists). It counts its own ticks without a beat rather than reading clocks:
 * a clock stepped forward (NTP, a test's faked time) is not a stuck thread. Its last words go to
 * stdout as one of the service's JSON log lines, written directly: the main thread that carries the
 * logger is the one that is stuck.
 */
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { shared, missesAllowed, warnMisses, timeoutMs, pid, hostname } = workerData;
const line = (fields) => writeSync(1, JSON.stringify({ time: Date.now(), pid, hostname, ...fields }) + '\\n');
let last = Atomics.load(shared, ${BEATS});
let misses = 0;
setInterval(() => {
  const now = Atomics.load(shared, ${BEATS});
  if (now !== last && misses >= warnMisses && misses < missesAllowed) {
    line({ level: 30, stalledSeconds: misses, timeoutMs, msg: 'the main thread turned its event loop again after a stall' });
  }
  misses = now === last ? misses + 1 : 0;
  last = now;
  if (misses === warnMisses && misses < missesAllowed) {
    Atomics.add(shared, ${STALLS}, 1);
    line({ level: 40, stalledSeconds: misses, timeoutMs, msg: 'the main thread has not turned its event loop for 5 s; the watchdog ends the process if this lasts WATCHDOG_TIMEOUT_MS' });
  }
  if (misses < missesAllowed) return;
  line({ level: 60, timeoutMs, msg: 'the main thread has not turned its event loop for WATCHDOG_TIMEOUT_MS (a fatal signal embedded ClickHouse caught, or a loop that never yields); ending the process with SIGKILL so that its supervisor starts it again' });
  process.kill(pid, 'SIGKILL');
}, ${BEAT_MS});
`;

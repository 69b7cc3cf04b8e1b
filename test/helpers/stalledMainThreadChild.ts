/**
 * A process whose main thread stops turning its event loop for `stallMs` (blocked, as a long
 * synchronous step blocks it) under a watchdog of `timeoutMs`, then prints how many stalls the
 * watchdog counted (adsvc_main_thread_stalls_total) once a few beats have passed again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mainThreadStalls, startProcessWatchdog } from '../../src/processWatchdog.js';

const [stallMs, timeoutMs] = [Number(process.argv[2]), Number(process.argv[3])];
startProcessWatchdog(timeoutMs);
// The worker thread's start, and its first tick, before the stall.
await sleep(1500);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, stallMs);
// The watchdog sees the beats again at its next ticks.
await sleep(2500);
process.stdout.write(`stalls ${mainThreadStalls()}\n`);
process.exit(0);

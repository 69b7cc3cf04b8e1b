/**
 * Preloaded into the service (`node --expose-gc --import heapProbe.js main.js serve`) when the bench
 * measures memory: on the IPC message 'heap' it runs a full garbage collection and answers with
 * process.memoryUsage(), so the figure is live data, not garbage waiting for the next collection.
 * Nothing in src/ knows about it.
 */
export interface HeapReport {
  type: 'heap';
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  arrayBuffers: number;
}

if (process.send) {
  process.on('message', (message) => {
    if (message !== 'heap') return;
    (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    const report: HeapReport = { type: 'heap', ...usage };
    process.send!(report);
  });
  // The channel must not keep the service alive once it wants to exit.
  process.channel?.unref();
}

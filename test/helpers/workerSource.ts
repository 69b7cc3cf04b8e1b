import { Worker } from 'node:worker_threads';

/**
 * The first message of a worker file's TypeScript source, run under tsx in a worker thread as the
 * built service runs its compiled file: under the sources builtInWorker.ts builds on the main
 * thread instead, so only this runs the worker's own code.
 */
export function firstMessageOfWorkerSource<Message>(source: URL, workerData: unknown): Promise<Message> {
  return new Promise((resolve, reject) => {
    const code = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source.href)}); })`;
    const worker = new Worker(code, { eval: true, workerData });
    worker.once('message', (message: Message) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

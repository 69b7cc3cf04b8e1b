import { Worker } from 'node:worker_threads';

/**
 * Something the start needs, built in a worker thread so that the start goes on meanwhile (the ad
 * index is read and built on the main thread), or built here when no worker can be started (tests
 * run the TypeScript sources, where the worker's compiled file does not exist) or when the worker
 * could not build it: then `build` throws the real error (a bad file names its file and line) and
 * the promise rejects with it. `fromMessage` turns the worker's one message into the result, or
 * into undefined when the worker says it could not build it.
 */
export function builtInWorker<Message, Result>(
  workerFile: URL,
  workerData: unknown,
  fromMessage: (message: Message) => Result | undefined,
  build: () => Result,
): Promise<Result> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const buildHere = () => {
      if (settled) return;
      settled = true;
      try {
        resolve(build());
      } catch (error) {
        reject(error as Error);
      }
    };
    let worker: Worker;
    try {
      worker = new Worker(workerFile, { workerData });
    } catch {
      buildHere();
      return;
    }
    worker.once('message', (message: Message) => {
      const result = fromMessage(message);
      if (result === undefined) buildHere();
      else if (!settled) {
        settled = true;
        resolve(result);
      }
      void worker.terminate();
    });
    worker.once('error', buildHere);
    worker.once('exit', buildHere);
  });
}

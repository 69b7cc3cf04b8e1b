import { Worker } from 'node:worker_threads';
import type { SemanticModel } from '../semantic/semanticModel.js';
import { lineItemIndexes } from './catalogQueries.js';
import { creativeRanges } from './creativeRanges.js';
import { lineItemVectorsOf, optedInLineItems, type ReadVectors } from './readVectors.js';

/** What a full read's worker (fullReadWorker.ts) sends, in this order: the ranges, how many line items opted in, and (when any did and the model was sent) their vectors. */
export type FullReadMessage = { ranges: Float64Array } | { optedIn: number } | ReadVectors;

/** What a first start makes of a full read beside the main thread (fullReadAside). */
export interface FullReadAside {
  /** The read's creativeRanges. */
  ranges: Promise<number[]>;
  /** The opted-in line items' vectors (lineItemVectorsOf); undefined when none opted in or there is no model. */
  vectors: Promise<ReadVectors | undefined>;
}

/**
 * Walks a full read's rows in a worker thread while the main thread decodes the line items and
 * builds the index: the creatives' ranges (0.25-0.3 s of a first start at 100,000 line items and
 * 150,000 creatives), then, once `model` has loaded, the opted-in line items' vectors (0.65 s of the
 * main thread at 100,000, and 0.2 s more parsing their creatives: bench/README.md, "Ready after
 * start: session 45"), made with a copy of its tables. The worker reads the rows where they are
 * when they are in shared memory (embedded PGlite's), else a copy. Made here when no worker can be
 * started (tests run the TypeScript sources) or what the worker had not sent when it failed.
 */
export function fullReadAside(creativeRows: Buffer, lineItemRows: Buffer, model: Promise<SemanticModel | undefined>): FullReadAside {
  const rangesHere = () => creativeRanges(creativeRows, lineItemIndexes(lineItemRows));
  const vectorsHere = async (ranges: number[]) => {
    const loaded = await model;
    const optedIn = optedInLineItems(lineItemRows);
    return loaded && optedIn.length > 0 ? lineItemVectorsOf(optedIn, creativeRows, ranges, loaded) : undefined;
  };
  let worker: Worker;
  try {
    worker = new Worker(new URL('./fullReadWorker.js', import.meta.url), { workerData: { creativeRows, lineItemRows } });
  } catch {
    const ranges = Promise.resolve().then(rangesHere);
    return observed({ ranges, vectors: ranges.then(vectorsHere) });
  }
  const ranges = resolvers<number[]>();
  const vectors = resolvers<ReadVectors | undefined>();
  let sentRanges: number[] | undefined;
  let settled = false;
  const settle = (made: ReadVectors | undefined) => {
    settled = true;
    vectors.resolve(made);
    void worker.terminate();
  };
  worker.on('message', (message: FullReadMessage) => {
    if ('ranges' in message) ranges.resolve((sentRanges = Array.from(message.ranges)));
    else if ('optedIn' in message) {
      if (message.optedIn === 0) settle(undefined);
      else {
        void model.then(
          (loaded) => {
            const tables = loaded?.tables();
            worker.postMessage(tables ?? null, tables ? ([tables.slots.buffer, tables.commonDirection.buffer] as ArrayBuffer[]) : []);
            if (!tables) settle(undefined);
          },
          () => settle(undefined),
        );
      }
    } else settle(message);
  });
  // The worker failed or exited before it sent everything: the rest is made here.
  const madeHere = () => {
    if (settled) return;
    settled = true;
    try {
      sentRanges ??= rangesHere();
      ranges.resolve(sentRanges);
      vectors.resolve(vectorsHere(sentRanges));
    } catch (error) {
      ranges.reject(error as Error);
      vectors.reject(error as Error);
    }
  };
  worker.once('error', madeHere);
  worker.once('exit', madeHere);
  return observed({ ranges: ranges.promise, vectors: vectors.promise });
}

/** A start that fails before it awaits them leaves them unobserved: its own error is what it reports. */
function observed(aside: FullReadAside): FullReadAside {
  aside.ranges.catch(() => undefined);
  aside.vectors.catch(() => undefined);
  return aside;
}

function resolvers<T>(): { promise: Promise<T>; resolve(value: T | Promise<T>): void; reject(error: Error): void } {
  let resolve!: (value: T | Promise<T>) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

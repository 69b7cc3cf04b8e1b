import { Worker } from 'node:worker_threads';
import type { SemanticModel, WordTables } from '../semantic/semanticModel.js';
import { lineItemIndexes, type LineItemRow } from './catalogQueries.js';
import { creativeRanges } from './creativeRanges.js';
import { includeKeywords, makeVectors, optedInLineItems, sharedRows, vectorsUnderWay, type ReadVectors, type VectorsUnderWay } from './readVectors.js';

/**
 * What a full read's worker (fullReadWorker.ts) sends, in this order: the ranges, the opted-in line
 * items' rows (shared), and, when any opted in and it was given VectorsToMake, that it made its last.
 */
export type FullReadMessage = { ranges: Float64Array } | { optedIn: Int32Array } | { done: true };

/** What the worker is given to make the vectors with: the model's tables (moved), the shared memory to write them to and claim them from. */
export type VectorsToMake = { tables: WordTables } & Pick<VectorsUnderWay, 'vectors' | 'next'>;

/** A first start's opted-in line items' vectors, being made in a worker thread (fullReadAside). */
export interface VectorsAside {
  /** Undefined when none opted in or there is no model. */
  made: Promise<ReadVectors | undefined>;
  /**
   * Makes, here, those the worker has not begun yet, until none is left (with these decoded rows
   * of the read): for the main thread once its build needs nothing else, rather than waiting.
   */
  help(lineItems: LineItemRow[]): void;
}

/** What a first start makes of a full read beside the main thread (fullReadAside). */
export interface FullReadAside {
  /** The read's creativeRanges. */
  ranges: Promise<number[]>;
  vectors: VectorsAside;
}

/**
 * Walks a full read's rows in a worker thread while the main thread decodes the line items and
 * builds the index: the creatives' ranges (0.25-0.3 s of a first start at 100,000 line items and
 * 150,000 creatives), then, once `model` has loaded, the opted-in line items' vectors (0.65 s of the
 * main thread at 100,000, and 0.2 s more parsing their creatives: bench/README.md, "Ready after
 * start: session 45"), with a copy of its tables; the main thread makes what is left of them once
 * its build is done (help). The worker reads the rows where they are when they are in shared
 * memory (embedded PGlite's), else a copy. Made here when no worker can be started (tests run the
 * TypeScript sources), and what the worker had not sent when it failed.
 */
export function fullReadAside(creativeRows: Buffer, lineItemRows: Buffer, model: Promise<SemanticModel | undefined>): FullReadAside {
  const rangesHere = () => creativeRanges(creativeRows, lineItemIndexes(lineItemRows));
  const vectorsHere = async (ranges: number[]): Promise<ReadVectors | undefined> => {
    const loaded = await model;
    const optedIn = optedInLineItems(lineItemRows);
    if (!loaded || optedIn.length === 0) return undefined;
    const underWay = vectorsUnderWay(sharedRows(optedIn), loaded.dimensions);
    makeVectors(underWay, (i) => optedIn[i]!.keywords, creativeRows, ranges, loaded);
    return underWay;
  };
  let worker: Worker;
  try {
    worker = new Worker(new URL('./fullReadWorker.js', import.meta.url), { workerData: { creativeRows, lineItemRows } });
  } catch {
    const ranges = Promise.resolve().then(rangesHere);
    return observed({ ranges, vectors: { made: ranges.then(vectorsHere), help: () => undefined } });
  }
  const ranges = resolvers<number[]>();
  const made = resolvers<ReadVectors | undefined>();
  let sentRanges: number[] | undefined;
  // Once the worker was given the model: what both threads make the vectors with.
  let shared: { underWay: VectorsUnderWay; model: SemanticModel } | undefined;
  let settled = false;
  const settle = (vectors: ReadVectors | undefined) => {
    settled = true;
    made.resolve(vectors);
    void worker.terminate();
  };
  worker.on('message', (message: FullReadMessage) => {
    if ('ranges' in message) ranges.resolve((sentRanges = Array.from(message.ranges)));
    else if ('optedIn' in message) {
      const rows = message.optedIn;
      if (rows.length === 0) settle(undefined);
      else {
        void model.then(
          (loaded) => {
            if (!loaded) {
              worker.postMessage(null);
              settle(undefined);
              return;
            }
            const underWay = vectorsUnderWay(rows, loaded.dimensions);
            const tables = loaded.tables();
            worker.postMessage({ tables, vectors: underWay.vectors, next: underWay.next } satisfies VectorsToMake, [tables.slots.buffer, tables.commonDirection.buffer] as ArrayBuffer[]);
            shared = { underWay, model: loaded };
          },
          () => settle(undefined),
        );
      }
    } else if (shared) settle({ rows: shared.underWay.rows, vectors: shared.underWay.vectors });
  });
  // The worker failed or exited before it sent everything: the rest is made here.
  const madeHere = () => {
    if (settled) return;
    settled = true;
    try {
      sentRanges ??= rangesHere();
      ranges.resolve(sentRanges);
      made.resolve(vectorsHere(sentRanges));
    } catch (error) {
      ranges.reject(error as Error);
      made.reject(error as Error);
    }
  };
  worker.once('error', madeHere);
  worker.once('exit', madeHere);
  const help = (lineItems: LineItemRow[]) => {
    if (shared === undefined || sentRanges === undefined || settled) return;
    const { rows } = shared.underWay;
    makeVectors(shared.underWay, (i) => includeKeywords(lineItems[rows[i]!]!.targeting), creativeRows, sentRanges, shared.model);
  };
  return observed({ ranges: ranges.promise, vectors: { made: made.promise, help } });
}

/** A start that fails before it awaits them leaves them unobserved: its own error is what it reports. */
function observed(aside: FullReadAside): FullReadAside {
  aside.ranges.catch(() => undefined);
  aside.vectors.made.catch(() => undefined);
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

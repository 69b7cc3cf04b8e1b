import { parentPort, workerData } from 'node:worker_threads';
import { SemanticModel } from '../semantic/semanticModel.js';
import { lineItemIndexes } from './catalogQueries.js';
import { creativeRanges } from './creativeRanges.js';
import type { FullReadMessage, VectorsToMake } from './fullReadAside.js';
import { makeVectors, optedInLineItems, sharedRows } from './readVectors.js';

// Run by fullReadAside in a worker thread on a full read's rows (shared, or its copies): sends the
// creatives' ranges; then, when a line item opted into semantic matching, their rows, and once
// given the model's tables and the shared memory to write to, makes their vectors (with the main
// thread, once it is done with its build) and says when it has made its last.
const { creativeRows, lineItemRows } = workerData as { creativeRows: Uint8Array; lineItemRows: Uint8Array };
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const [creatives, lineItems] = [asBuffer(creativeRows), asBuffer(lineItemRows)];
const port = parentPort!;
const ranges = Float64Array.from(creativeRanges(creatives, lineItemIndexes(lineItems)));
port.postMessage({ ranges } satisfies FullReadMessage);
const optedIn = optedInLineItems(lineItems);
const rows = sharedRows(optedIn);
port.postMessage({ optedIn: rows } satisfies FullReadMessage);
if (optedIn.length > 0) {
  port.once('message', (toMake: VectorsToMake | null) => {
    if (toMake === null) return;
    const { tables, vectors, next } = toMake;
    makeVectors({ rows, vectors, next }, (i) => optedIn[i]!.keywords, creatives, ranges, new SemanticModel(tables));
    port.postMessage({ done: true } satisfies FullReadMessage);
  });
}

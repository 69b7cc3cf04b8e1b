import { parentPort, workerData } from 'node:worker_threads';
import { SemanticModel, type WordTables } from '../semantic/semanticModel.js';
import { lineItemIndexes } from './catalogQueries.js';
import { creativeRanges } from './creativeRanges.js';
import type { FullReadMessage } from './fullReadAside.js';
import { lineItemVectorsOf, optedInLineItems } from './readVectors.js';

// Run by fullReadAside in a worker thread on a full read's rows (shared, or its copies): sends the
// creatives' ranges; then, when a line item opted into semantic matching, asks for the model's
// tables and sends the vectors (their rows moved, the vectors shared), else says there are none.
const { creativeRows, lineItemRows } = workerData as { creativeRows: Uint8Array; lineItemRows: Uint8Array };
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const [creatives, lineItems] = [asBuffer(creativeRows), asBuffer(lineItemRows)];
const port = parentPort!;
const ranges = Float64Array.from(creativeRanges(creatives, lineItemIndexes(lineItems)));
port.postMessage({ ranges } satisfies FullReadMessage);
const optedIn = optedInLineItems(lineItems);
port.postMessage({ optedIn: optedIn.length } satisfies FullReadMessage);
if (optedIn.length > 0) {
  port.once('message', (tables: WordTables | null) => {
    if (tables === null) return;
    const made = lineItemVectorsOf(optedIn, creatives, ranges, new SemanticModel(tables));
    port.postMessage(made satisfies FullReadMessage, [made.rows.buffer as ArrayBuffer]);
  });
}

import { parentPort, workerData } from 'node:worker_threads';
import { lineItemIndexes } from './catalogQueries.js';
import { creativeRanges } from './creativeRanges.js';

// Run by creativeRangesAside in a worker thread: walks the rows (shared, or its copies) and sends the ranges back (moved, not copied).
const { creativeRows, lineItemRows } = workerData as { creativeRows: Uint8Array; lineItemRows: Uint8Array };
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const ranges = Float64Array.from(creativeRanges(asBuffer(creativeRows), lineItemIndexes(asBuffer(lineItemRows))));
parentPort!.postMessage(ranges, [ranges.buffer as ArrayBuffer]);

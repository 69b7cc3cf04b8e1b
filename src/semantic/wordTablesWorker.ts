import { parentPort, workerData } from 'node:worker_threads';
import { wordTables } from './semanticModel.js';
import { readWordVectors } from './wordVectorsFile.js';

// Run by loadSemanticMatching in a worker thread: reads the word vectors file and sends the model's
// tables back (moved, not copied), or null when there is no file. A bad file fails the worker, and
// the main thread reads it again to throw its error.
const vectors = readWordVectors((workerData as { file: string }).file);
if (!vectors) parentPort!.postMessage(null);
else {
  const tables = wordTables(vectors);
  parentPort!.postMessage(tables, [tables.slots.buffer, tables.commonDirection.buffer] as ArrayBuffer[]);
}

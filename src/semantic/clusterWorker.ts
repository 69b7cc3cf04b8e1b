import { parentPort, workerData } from 'node:worker_threads';
import type { PackedClusters } from './clustersInWorker.js';
import { packVectors, unpackVectors } from './packedVectors.js';
import { SemanticMatrix } from './semanticMatrix.js';

// Run by clustersInWorker in a worker thread: trains a list's clusters (SemanticMatrix.train, the
// same k-means and kernel as on the main thread) and sends the centres (packed) and each vector's
// cluster back, moved, not copied.
const { packed, dimensions } = workerData as { packed: Float32Array; dimensions: number };
const { centres, clusterOf } = new SemanticMatrix(dimensions).train(unpackVectors(packed, dimensions));
const message: PackedClusters = { centres: packVectors(centres, dimensions), clusterOf };
parentPort!.postMessage(message, [message.centres.buffer, clusterOf.buffer] as ArrayBuffer[]);

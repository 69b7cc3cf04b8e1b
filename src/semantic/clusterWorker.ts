import { parentPort, workerData } from 'node:worker_threads';
import { packVectors, type PackedClusters } from './clustersInWorker.js';
import { SemanticMatrix } from './semanticMatrix.js';

// Run by clustersInWorker in a worker thread: trains a list's clusters (SemanticMatrix.train, the
// same k-means and kernel as on the main thread) and sends the centres (packed) and each vector's
// cluster back, moved, not copied.
const { packed, dimensions } = workerData as { packed: Float32Array; dimensions: number };
const vectors = Array.from({ length: packed.length / dimensions }, (_, i) => packed.subarray(i * dimensions, (i + 1) * dimensions));
const { centres, clusterOf } = new SemanticMatrix(dimensions).train(vectors);
const message: PackedClusters = { centres: packVectors(centres, dimensions), clusterOf };
parentPort!.postMessage(message, [message.centres.buffer, clusterOf.buffer] as ArrayBuffer[]);

import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { packVectors, unpackVectors } from './packedVectors.js';
import { SemanticMatrix, type ClusterTrainer } from './semanticMatrix.js';

/** What clusterWorker.ts sends back: the centres packed as the vectors are (packVectors), and each vector's cluster. */
export interface PackedClusters {
  centres: Float32Array;
  clusterOf: Int32Array;
}

type Trained = Awaited<ReturnType<ClusterTrainer>>;

/**
 * A ClusterTrainer that trains in a worker thread (clusterWorker.ts), beside serving: 7 s of
 * k-means at 100,000 opted-in line items that a first start would otherwise wait for. Trained here
 * only when there is no compiled worker (tests run the TypeScript sources). A worker that fails
 * is not made up for by training here (seconds of serving blocked) nor started again: the training
 * rejects, the first failure warned of on `log`, and the matrix scans its list whole (exact, slower).
 */
export function clustersInWorker(dimensions: number, log: FastifyBaseLogger): ClusterTrainer {
  const workerFile = new URL('./clusterWorker.js', import.meta.url);
  const train = existsSync(workerFile)
    ? (vectors: Float32Array[]) => inWorker(workerFile, vectors, dimensions)
    : // After this turn of the event loop, as a worker's clusters would come.
      (vectors: Float32Array[]) => new Promise<void>((resolve) => setImmediate(resolve)).then(() => new SemanticMatrix(dimensions).train(vectors));
  let warned = false;
  return (vectors) =>
    train(vectors).catch((error: unknown) => {
      if (!warned) log.warn({ err: error }, 'training semantic clusters failed; the semantic lists that need them are scanned whole (exact, slower)');
      warned = true;
      throw error;
    });
}

function inWorker(workerFile: URL, vectors: Float32Array[], dimensions: number): Promise<Trained> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile, { workerData: { packed: packVectors(vectors, dimensions), dimensions } });
    worker.once('message', (message: PackedClusters) => {
      resolve(unpackClusters(message, dimensions));
      void worker.terminate();
    });
    worker.once('error', reject);
    // After the message this changes nothing: a promise settles once.
    worker.once('exit', (code) => reject(new Error(`the cluster worker exited (code ${code}) before it sent the clusters`)));
  });
}

/** The worker's message as SemanticMatrix.train returns it: the centres as views of its buffer. */
export function unpackClusters({ centres, clusterOf }: PackedClusters, dimensions: number): Trained {
  return { centres: unpackVectors(centres, dimensions), clusterOf };
}

import { builtInWorker } from '../builtInWorker.js';
import { SemanticMatrix, type ClusterTrainer } from './semanticMatrix.js';

/** What clusterWorker.ts sends back: the centres packed as the vectors are (packVectors), and each vector's cluster. */
export interface PackedClusters {
  centres: Float32Array;
  clusterOf: Int32Array;
}

/**
 * A ClusterTrainer that trains in a worker thread (clusterWorker.ts), beside serving: 7 s of
 * k-means at 100,000 opted-in line items that a first start would otherwise wait for. Trained here
 * when no worker can be started (tests run the TypeScript sources: there is no compiled worker).
 */
export function clustersInWorker(dimensions: number): ClusterTrainer {
  return (vectors) =>
    builtInWorker<PackedClusters, { centres: Float32Array[]; clusterOf: Int32Array }>(
      new URL('./clusterWorker.js', import.meta.url),
      { packed: packVectors(vectors, dimensions), dimensions },
      (message) => unpackClusters(message, dimensions),
      () => new SemanticMatrix(dimensions).train(vectors),
    );
}

/** Vectors in one buffer for the worker, vector i at i x dimensions (the worker's message packs its centres so too). */
export function packVectors(vectors: Float32Array[], dimensions: number): Float32Array {
  const packed = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, i) => packed.set(vector, i * dimensions));
  return packed;
}

/** The worker's message as SemanticMatrix.train returns it: the centres as views of its buffer. */
export function unpackClusters({ centres, clusterOf }: PackedClusters, dimensions: number): { centres: Float32Array[]; clusterOf: Int32Array } {
  return { centres: Array.from({ length: centres.length / dimensions }, (_, c) => centres.subarray(c * dimensions, (c + 1) * dimensions)), clusterOf };
}

import { builtInWorker } from '../builtInWorker.js';
import { SemanticMatrix, type ClusterTrainer } from './semanticMatrix.js';

interface Trained {
  centres: Float32Array;
  clusterOf: Int32Array;
}

/**
 * A ClusterTrainer that trains in a worker thread (clusterWorker.ts), beside serving: 7 s of
 * k-means at 100,000 opted-in line items that a first start would otherwise wait for. Trained here
 * when no worker can be started (tests run the TypeScript sources: there is no compiled worker).
 */
export function clustersInWorker(dimensions: number): ClusterTrainer {
  return (vectors) => {
    const packed = new Float32Array(vectors.length * dimensions);
    vectors.forEach((vector, i) => packed.set(vector, i * dimensions));
    return builtInWorker<Trained, { centres: Float32Array[]; clusterOf: Int32Array }>(
      new URL('./clusterWorker.js', import.meta.url),
      { packed, dimensions },
      ({ centres, clusterOf }) => ({ centres: Array.from({ length: centres.length / dimensions }, (_, c) => centres.subarray(c * dimensions, (c + 1) * dimensions)), clusterOf }),
      () => new SemanticMatrix(dimensions).train(vectors),
    );
  };
}

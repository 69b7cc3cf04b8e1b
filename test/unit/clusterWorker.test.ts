import { describe, expect, it } from 'vitest';
import { unpackClusters, type PackedClusters } from '../../src/semantic/clustersInWorker.js';
import { packVectors } from '../../src/semantic/packedVectors.js';
import { SemanticMatrix } from '../../src/semantic/semanticMatrix.js';
import { firstMessageOfWorkerSource } from '../helpers/workerSource.js';

describe('clusterWorker', () => {
  it('trains, from the vectors clustersInWorker packs, the clusters SemanticMatrix.train trains on the main thread, unpacked to the same', async () => {
    // Not a multiple of the kernel's 16-component blocks: a stride of the padded width would show.
    const dimensions = 37;
    let seed = 5;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const topics = Array.from({ length: 30 }, () => Float32Array.from({ length: dimensions }, () => random() - 0.5));
    const vectors = Array.from({ length: 3000 }, (_, i) => {
      const vector = topics[i % topics.length]!.map((value) => value + 0.4 * (random() - 0.5));
      const norm = Math.hypot(...vector);
      return vector.map((value) => value / norm);
    });
    // No other test runs the worker: under the sources clustersInWorker trains on the main thread.
    const source = new URL('../../src/semantic/clusterWorker.ts', import.meta.url);
    const message = await firstMessageOfWorkerSource<PackedClusters>(source, { packed: packVectors(vectors, dimensions), dimensions });
    const fromWorker = unpackClusters(message, dimensions);

    const here = new SemanticMatrix(dimensions).train(vectors);
    expect(here.centres.length).toBeGreaterThan(10);
    expect(fromWorker.centres.length).toBe(here.centres.length);
    fromWorker.centres.forEach((centre, c) => expect([...centre], `centre ${c}`).toEqual([...here.centres[c]!]));
    expect(fromWorker.clusterOf).toBeInstanceOf(Int32Array);
    expect([...fromWorker.clusterOf]).toEqual([...here.clusterOf]);
  });
});

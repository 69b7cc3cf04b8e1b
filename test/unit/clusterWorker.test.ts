import { describe, expect, it } from 'vitest';
import { unpackClusters, type PackedClusters } from '../../src/semantic/clustersInWorker.js';
import { vectorsForWorker } from '../../src/semantic/packedVectors.js';
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
    const sent = vectorsForWorker(vectors, dimensions);
    expect('packed' in sent).toBe(true);
    const message = await firstMessageOfWorkerSource<PackedClusters>(source, { vectors: sent, dimensions });
    const fromWorker = unpackClusters(message, dimensions);

    const here = new SemanticMatrix(dimensions).train(vectors);
    expect(here.centres.length).toBeGreaterThan(10);
    expect(fromWorker.centres.length).toBe(here.centres.length);
    fromWorker.centres.forEach((centre, c) => expect([...centre], `centre ${c}`).toEqual([...here.centres[c]!]));
    expect(fromWorker.clusterOf).toBeInstanceOf(Int32Array);
    expect([...fromWorker.clusterOf]).toEqual([...here.clusterOf]);

    // The same vectors as views of one SharedArrayBuffer, in another order than they lie there (a
    // first start's, made in a worker: readVectors.ts): sent as their offsets, trained in the order given.
    const lying = new Float32Array(new SharedArrayBuffer(vectors.length * dimensions * 4));
    const views = vectors.map((vector, i) => {
      const at = ((i * 7) % vectors.length) * dimensions;
      lying.set(vector, at);
      return lying.subarray(at, at + dimensions);
    });
    const sharedSent = vectorsForWorker(views, dimensions);
    expect('shared' in sharedSent).toBe(true);
    const fromShared = unpackClusters(await firstMessageOfWorkerSource<PackedClusters>(source, { vectors: sharedSent, dimensions }), dimensions);
    fromShared.centres.forEach((centre, c) => expect([...centre], `centre ${c}`).toEqual([...here.centres[c]!]));
    expect([...fromShared.clusterOf]).toEqual([...here.clusterOf]);
  });
});

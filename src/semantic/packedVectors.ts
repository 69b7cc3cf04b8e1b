/**
 * Vectors of one length in one buffer, vector i at i x dimensions: how they cross to a worker
 * thread (clustersInWorker.ts) and how the catalog snapshot keeps them (semanticSnapshot.ts).
 */
export function packVectors(vectors: ReadonlyArray<Float32Array>, dimensions: number): Float32Array {
  const packed = new Float32Array(vectors.length * dimensions);
  vectors.forEach((vector, i) => packed.set(vector, i * dimensions));
  return packed;
}

/** The vectors packVectors packed, as views of its buffer (nothing copied). */
export function unpackVectors(packed: Float32Array, dimensions: number): Float32Array[] {
  return Array.from({ length: packed.length / dimensions }, (_, i) => packed.subarray(i * dimensions, (i + 1) * dimensions));
}

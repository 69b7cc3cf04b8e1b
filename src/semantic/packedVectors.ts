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

/**
 * Vectors as they cross to a worker thread: where they all are views of one SharedArrayBuffer (a
 * first start's, made in a worker: readVectors.ts), that buffer and each one's offset in floats,
 * nothing copied; else packed (packVectors), a copy: 0.1 s of a first start's main thread at
 * 100,000 opted-in line items (bench/README.md, "Ready after start: session 45").
 */
export type VectorsForWorker = { shared: Float32Array; offsets: Int32Array } | { packed: Float32Array };

export function vectorsForWorker(vectors: ReadonlyArray<Float32Array>, dimensions: number): VectorsForWorker {
  const buffer = vectors[0]?.buffer;
  const offsets = new Int32Array(vectors.length);
  let shared = buffer instanceof SharedArrayBuffer;
  for (let i = 0; i < vectors.length && shared; i++) {
    const vector = vectors[i]!;
    shared = vector.buffer === buffer && vector.length === dimensions;
    offsets[i] = vector.byteOffset / 4;
  }
  return shared ? { shared: new Float32Array(buffer!), offsets } : { packed: packVectors(vectors, dimensions) };
}

/** The vectors vectorsForWorker sent, as views of the buffer they came in (nothing copied). */
export function vectorsFromWorker(sent: VectorsForWorker, dimensions: number): Float32Array[] {
  if ('packed' in sent) return unpackVectors(sent.packed, dimensions);
  return Array.from(sent.offsets, (offset) => sent.shared.subarray(offset, offset + dimensions));
}

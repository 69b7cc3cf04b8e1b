/** Rounds of k-means: after a few, few vectors change cluster and probing finds as much. */
const ITERATIONS = 8;
/**
 * Clusters per sqrt(n) vectors: about sqrt(n)/2 clusters (50 for 10,000 rows). Measured
 * (bench/README.md, "Semantic: session 45" and its sem45b part) with bench/semanticRecall.ts on
 * three catalogs of 10,000 opted-in line items: with 4 probed, half as many clusters as sqrt(n) find
 * 98.0 % of an exhaustive search's similarity matches against sqrt(n)'s 93.6 %, comparing about as
 * many rows a serve (85.6 against 84.2): coarser clusters leave fewer matches just across a
 * boundary, and the fewer centres pay for the larger clusters scanned. Twice as many was worse (87.5 %).
 */
const CLUSTERS_PER_SQRT_ROWS = 0.5;

/**
 * Spherical k-means over unit vectors, for the inverted-file search of semanticMatrix.ts: about
 * sqrt(n)/2 clusters (CLUSTERS_PER_SQRT_ROWS), so that comparing with the centres and scanning a few
 * clusters' members cost the same order. `assignAll` gives each vector its most similar centre (the matrix does it with its
 * SIMD kernel: 10,000 vectors x 100 centres take milliseconds, not the ~100 ms of plain JS).
 * Deterministic: the seeds are vectors spread evenly over the list, and a cluster left empty is dropped.
 */
export function clusterVectors(
  vectors: Float32Array[],
  assignAll: (centres: Float32Array[]) => Int32Array,
): { centres: Float32Array[]; clusterOf: Int32Array } {
  const count = Math.max(1, Math.round(CLUSTERS_PER_SQRT_ROWS * Math.sqrt(vectors.length)));
  const dimensions = vectors[0]!.length;
  let centres = Array.from({ length: count }, (_, c) => Float32Array.from(vectors[Math.floor((c * vectors.length) / count)]!));
  let clusterOf = assignAll(centres);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const sums = centres.map(() => new Float32Array(dimensions));
    vectors.forEach((vector, i) => {
      const sum = sums[clusterOf[i]!]!;
      for (let d = 0; d < dimensions; d++) sum[d]! += vector[d]!;
    });
    centres = sums.filter((sum) => normalize(sum));
    clusterOf = assignAll(centres);
  }
  return { centres, clusterOf };
}

/** Scales a vector to unit length in place; false for the zero vector (an empty cluster's sum). */
function normalize(vector: Float32Array): boolean {
  let norm = 0;
  for (let d = 0; d < vector.length; d++) norm += vector[d]! * vector[d]!;
  if (!(norm > 0)) return false;
  const inverse = 1 / Math.sqrt(norm);
  for (let d = 0; d < vector.length; d++) vector[d]! *= inverse;
  return true;
}

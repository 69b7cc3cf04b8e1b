/** What clustering reads of a line item: its vector and threshold (the index's entries have more). */
interface SemanticEntry {
  semantic?: { vector: Float32Array; minSimilarity: number } | null;
}

/** Members split as the index ranks them, by the placement certification they are eligible for. */
interface ClusterMembers<Entry> {
  certified: Entry[];
  uncertified: Entry[];
}

/**
 * Opted-in line items grouped by k-means on their vectors. A cluster's radius bounds how similar
 * any member can be to a conversation (the angle to a member is at least the angle to the centroid
 * minus the radius), so a serve skips every cluster that cannot reach its members' thresholds
 * without computing one similarity inside it.
 */
export interface SemanticCluster<Entry = unknown> {
  centroid: Float32Array;
  /** Smallest cosine of a member to the centroid. */
  cosRadius: number;
  /** Smallest min_similarity of a member. */
  minThreshold: number;
  members: ClusterMembers<Entry>;
}

/** Below this many opted-in line items, walking them all costs less than the clusters would save. */
export const MIN_CLUSTERED_LINE_ITEMS = 256;
const MAX_CLUSTERS = 64;
const ITERATIONS = 5;

export function buildSemanticClusters<Entry extends SemanticEntry>(
  entries: Entry[],
  addToRanked: (lists: ClusterMembers<Entry>, entry: Entry) => void,
): SemanticCluster<Entry>[] {
  if (entries.length < MIN_CLUSTERED_LINE_ITEMS) return [];
  const dimensions = entries[0]!.semantic!.vector.length;
  const count = Math.min(MAX_CLUSTERS, Math.ceil(Math.sqrt(entries.length)));
  let centroids = Array.from({ length: count }, (_, k) => Float32Array.from(entries[Math.floor((k * entries.length) / count)]!.semantic!.vector));
  const assignment = new Int32Array(entries.length);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    entries.forEach((entry, i) => (assignment[i] = nearest(entry.semantic!.vector, centroids)));
    const sums = centroids.map(() => new Float32Array(dimensions));
    entries.forEach((entry, i) => {
      const sum = sums[assignment[i]!]!;
      const vector = entry.semantic!.vector;
      for (let d = 0; d < dimensions; d++) sum[d]! += vector[d]!;
    });
    centroids = sums.map((sum, k) => (unit(sum) ? sum : centroids[k]!));
  }
  const clusters: SemanticCluster<Entry>[] = centroids.map((centroid) => ({ centroid, cosRadius: 1, minThreshold: 1, members: { certified: [], uncertified: [] } }));
  entries.forEach((entry, i) => {
    const cluster = clusters[assignment[i]!]!;
    cluster.cosRadius = Math.min(cluster.cosRadius, dot(entry.semantic!.vector, cluster.centroid));
    cluster.minThreshold = Math.min(cluster.minThreshold, entry.semantic!.minSimilarity);
    addToRanked(cluster.members, entry);
  });
  return clusters.filter((cluster) => cluster.members.certified.length > 0);
}

/** The highest cosine any member of the cluster can have with a conversation vector. */
export function similarityBound(cluster: SemanticCluster, conversation: Float32Array): number {
  const toCentroid = Math.min(1, Math.max(-1, dot(conversation, cluster.centroid)));
  if (toCentroid >= cluster.cosRadius) return 1;
  return Math.cos(Math.acos(toCentroid) - Math.acos(Math.max(-1, cluster.cosRadius)));
}

function nearest(vector: Float32Array, centroids: Float32Array[]): number {
  let best = 0;
  let bestScore = -Infinity;
  centroids.forEach((centroid, k) => {
    const score = dot(vector, centroid);
    if (score > bestScore) [best, bestScore] = [k, score];
  });
  return best;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += a[d]! * b[d]!;
  return sum;
}

function unit(vector: Float32Array): boolean {
  let norm = 0;
  for (let d = 0; d < vector.length; d++) norm += vector[d]! * vector[d]!;
  if (!(norm > 0)) return false;
  const inverse = 1 / Math.sqrt(norm);
  for (let d = 0; d < vector.length; d++) vector[d]! *= inverse;
  return true;
}

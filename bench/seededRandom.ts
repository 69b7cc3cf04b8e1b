/**
 * A deterministic pseudo-random sequence (mulberry32), so a seed reproduces the same catalog and traffic:
 * for the benches' generators and tests alike. Its home is bench/, which the Docker image's build
 * compiles (tsconfig.build.json), not test/, which it does not copy (rev44 R8); a test may import this
 * one pure function: what it makes depends on the seed, not on any bench's data.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

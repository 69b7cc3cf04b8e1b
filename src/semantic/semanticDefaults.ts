/**
 * The similarity a serve must reach when a line item does not set targeting.semantic.min_similarity;
 * chosen on the evaluation set (bench/semantic, see docs/semantic-matching.md).
 */
export const DEFAULT_MIN_SIMILARITY = 0.45;

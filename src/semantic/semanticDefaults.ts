/**
 * The similarity a serve must reach when a line item does not set targeting.semantic.min_similarity;
 * the lowest at which hybrid matching was 80 % precise on the tuning half of the evaluation set
 * (bench/semanticEval.ts; figures in bench/README.md).
 */
export const DEFAULT_MIN_SIMILARITY = 0.55;

import { writeWordVectorsIfMissing } from '../../src/semantic/buildWordVectors.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../../src/semantic/wordVectorsFile.js';
import { SemanticModel } from '../../src/semantic/semanticModel.js';

/**
 * The real word vectors, as `npm run build` converts them (converted here first when a test runs
 * before any build: seconds and about 1 GB, once per checkout).
 */
export function realSemanticModel(): SemanticModel {
  writeWordVectorsIfMissing();
  const vectors = readWordVectors(DEFAULT_WORD_VECTORS_PATH);
  if (!vectors) throw new Error(`no word vectors at ${DEFAULT_WORD_VECTORS_PATH}`);
  return new SemanticModel(vectors);
}

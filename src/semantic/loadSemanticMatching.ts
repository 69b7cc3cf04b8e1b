import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { BrandSafety } from './brandSafety.js';
import { SemanticModel } from './semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from './wordVectorsFile.js';

const modelsByPath = new Map<string, SemanticModel | undefined>();

/**
 * The word vectors and brand-safety check serving builds its index with. The compact file is read,
 * never the raw package (that would take seconds and a gigabyte); without it the service runs with
 * semantic matching off and brand safety by phrase only, and says so. One model per path per
 * process: tests start many apps.
 */
export function loadSemanticMatching(
  config: Pick<Config, 'WORD_VECTORS_PATH' | 'BRAND_SAFETY'>,
  log: FastifyBaseLogger,
): { semanticModel?: SemanticModel; brandSafety?: BrandSafety } {
  const file = config.WORD_VECTORS_PATH ?? DEFAULT_WORD_VECTORS_PATH;
  if (!modelsByPath.has(file)) modelsByPath.set(file, loadModel(file, log));
  const semanticModel = modelsByPath.get(file);
  const brandSafety = config.BRAND_SAFETY ? new BrandSafety(semanticModel) : undefined;
  return { ...(semanticModel ? { semanticModel } : {}), ...(brandSafety ? { brandSafety } : {}) };
}

function loadModel(file: string, log: FastifyBaseLogger): SemanticModel | undefined {
  const vectors = readWordVectors(file);
  if (vectors === undefined) {
    log.warn(
      { file },
      'semantic matching is off: no word vectors file (run `npm run build` with dev dependencies installed); keyword matching and everything else work',
    );
    return undefined;
  }
  log.info({ file, words: vectors.words.length }, 'semantic matching: word vectors loaded');
  return new SemanticModel(vectors);
}

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { builtInWorker } from '../builtInWorker.js';
import { BrandSafety } from './brandSafety.js';
import { SemanticModel, wordTables, type WordTables } from './semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from './wordVectorsFile.js';

type WordVectorsConfig = Pick<Config, 'WORD_VECTORS_PATH' | 'BRAND_SAFETY'>;

const modelsByPath = new Map<string, Promise<SemanticModel | undefined>>();

/**
 * The word vectors and brand-safety check serving builds its index with. The compact file is read,
 * never the raw package (that would take seconds and a gigabyte); without it the service runs with
 * semantic matching off and brand safety by phrase only, and says so. One model per path per
 * process: tests start many apps.
 */
export async function loadSemanticMatching(config: WordVectorsConfig, log: FastifyBaseLogger): Promise<{ semanticModel?: SemanticModel; brandSafety?: BrandSafety }> {
  const file = wordVectorsPath(config);
  const semanticModel = await preloadSemanticMatching(config);
  if (semanticModel) log.info({ file, words: semanticModel.wordCount }, 'semantic matching: word vectors loaded');
  else {
    log.warn(
      { file },
      'semantic matching is off: no word vectors file (run `npm run build` with dev dependencies installed); keyword matching and everything else work',
    );
  }
  const brandSafety = config.BRAND_SAFETY ? new BrandSafety(semanticModel) : undefined;
  return { ...(semanticModel ? { semanticModel } : {}), ...(brandSafety ? { brandSafety } : {}) };
}

/**
 * Begins loading the word vectors, if no load of that file has begun: in a worker thread (0.2 s of
 * decoding and hashing 100,000 words), so that a start that calls this before opening the stores
 * (server.ts) has the model by the time serving builds its index. Built here instead when no worker
 * can be started (tests run the TypeScript sources, where the worker's compiled file does not exist).
 */
export function preloadSemanticMatching(config: WordVectorsConfig): Promise<SemanticModel | undefined> {
  const file = wordVectorsPath(config);
  let loading = modelsByPath.get(file);
  if (!loading) {
    modelsByPath.set(file, (loading = tablesOf(file).then((tables) => (tables ? new SemanticModel(tables) : undefined))));
    // Awaited by loadSemanticMatching, which fails the start with a bad file's error; a start that fails before that leaves it unobserved.
    loading.catch(() => undefined);
  }
  return loading;
}

function wordVectorsPath(config: WordVectorsConfig): string {
  return config.WORD_VECTORS_PATH ?? DEFAULT_WORD_VECTORS_PATH;
}

/** The word tables, read and built in a worker thread (builtInWorker.ts); undefined when there is no vectors file. */
async function tablesOf(file: string): Promise<WordTables | undefined> {
  const tables = await builtInWorker<WordTables | null, WordTables | null>(
    new URL('./wordTablesWorker.js', import.meta.url),
    { file },
    (message) => message,
    () => {
      const vectors = readWordVectors(file);
      return vectors ? wordTables(vectors) : null;
    },
  );
  return tables ?? undefined;
}

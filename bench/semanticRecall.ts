import { SemanticModel } from '../src/semantic/semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../src/semantic/wordVectorsFile.js';
import { searchAgreement } from './semanticAgreement.js';

/**
 * How often the clustered search (semanticMatrix.ts: the PROBED_CLUSTERS clusters nearest the
 * conversation) serves what comparing every opted-in line item serves, on the serve-semantic bench's
 * catalog (10,000 line items, every one opted in) and its 500 bodies (semanticAgreement.ts): the
 * served ad (line item and creative) per body, and of the ads the exhaustive search matched by
 * similarity, how many the clustered one found (its recall@1). Catalog seeds other than the bench's
 * (7) say whether a figure is the catalog's. The catalog's size is an option: smaller ones (2,500,
 * 5,000) say how the search does just above CLUSTERED_FROM_ROWS; each list's rows and clusters are
 * printed. Also each search's selectAd in process (warm, us a call), for scale only: cost is
 * measured side by side (bench/semanticServeMicroBench.ts, bench/serveSideBySide.ts).
 * Usage: npm run build && node dist/bench/semanticRecall.js [catalog seeds, e.g. 7,8,9] [line items, 10000]
 */
const ROUNDS = 5;
const seeds = (process.argv[2] ?? '7,8,9').split(',').map(Number);
const lineItems = Number(process.argv[3] ?? 10_000);
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);

const totals = { bodies: 0, same: 0, exactBySimilarity: 0, found: 0, rows: 0 };
for (const seed of seeds) {
  const figures = await searchAgreement(model, seed, lineItems);
  const timed = figures.timed(ROUNDS);
  console.log(`catalog seed ${seed}, ${lineItems} line items: ${figures.lists.join('; ')}`);
  console.log(
    `catalog seed ${seed}: the same ad for ${figures.same} of ${figures.bodies} bodies; ads ${figures.exactAds} exhaustive, ${figures.clusteredAds} clustered; ` +
      `of the ${figures.exactBySimilarity} the exhaustive search matched by similarity the clustered found ${figures.found} (recall@1 ${((figures.found / figures.exactBySimilarity) * 100).toFixed(1)} %); ` +
      `rows compared a serve ${(figures.rows / figures.bodies).toFixed(1)}; selectAd warm ${timed.clustered.toFixed(1)} us clustered, ${timed.exact.toFixed(1)} exhaustive`,
  );
  if (figures.missed.length > 0) console.log(`  missed (exhaustive similarity -> clustered's ad): ${figures.missed.join('; ')}`);
  for (const name of ['bodies', 'same', 'exactBySimilarity', 'found', 'rows'] as const) totals[name] += figures[name];
}
console.log(
  `all: the same ad for ${totals.same} of ${totals.bodies} (${((totals.same / totals.bodies) * 100).toFixed(1)} %); recall@1 of the similarity matches ${totals.found} of ${totals.exactBySimilarity} (${((totals.found / totals.exactBySimilarity) * 100).toFixed(1)} %); rows compared a serve ${(totals.rows / totals.bodies).toFixed(1)}`,
);

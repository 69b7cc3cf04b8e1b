import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { selectAd, type Selection } from '../src/serving/selectAd.js';
import { SemanticModel } from '../src/semantic/semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../src/semantic/wordVectorsFile.js';
import { generateCatalog } from './catalogGenerator.js';
import { seededRandom } from './seededRandom.js';
import { inProcessIndex } from './inProcessIndex.js';
import { optedIn, serveBodies } from './scenarios/serveSemanticScenario.js';

/**
 * How often the clustered search (semanticMatrix.ts: the PROBED_CLUSTERS clusters nearest the
 * conversation) serves what comparing every opted-in line item serves, on the serve-semantic bench's
 * catalog (10,000 line items, every one opted in) and its 500 bodies: the served ad (line item and
 * creative) per body, and of the ads the exhaustive search matched by similarity, how many the
 * clustered one found (its recall@1). Both indexes are built from the same catalog with the same
 * tie-breaks; only the search differs. Catalog seeds other than the bench's (7) say whether a figure
 * is the catalog's. Also each search's selectAd in process (warm, us a call), for scale only: cost
 * is measured side by side (bench/semanticServeMicroBench.ts, bench/serveSideBySide.ts).
 * The catalog's size is an option: the bench's 10,000 by default; smaller ones (2,500, 5,000) say
 * how the search does just above CLUSTERED_FROM_ROWS. Each list's rows and clusters are printed.
 * Usage: npm run build && node dist/bench/semanticRecall.js [catalog seeds, e.g. 7,8,9] [line items]
 */
const LINE_ITEMS = Number(process.argv[3] ?? 10_000);
const ROUNDS = 5;
const seeds = (process.argv[2] ?? '7,8,9').split(',').map(Number);
const placements = Array.from({ length: 40 }, (_, i) => ({ id: randomUUID(), publisher_id: 'p', certification: i < 20 ? 'certified' : 'uncertified' }));
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);
const bodies = serveBodies(placements.map((placement) => placement.id));
const nowMs = Date.now();

const key = (selection: Selection | undefined) => (selection ? `${selection.lineItem.id}/${selection.creative.id}` : '-');
const totals = { bodies: 0, same: 0, exactAds: 0, clusteredAds: 0, exactBySimilarity: 0, found: 0, rows: 0 };
for (const seed of seeds) {
  const catalog = optedIn(generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: placements.map((placement) => placement.id), seed }), 1);
  // The index breaks exact ties by Math.random(): the same sequence for both, so that only the search differs.
  const random = Math.random;
  Math.random = seededRandom(5);
  const clustered = await inProcessIndex(catalog, placements, model);
  Math.random = seededRandom(5);
  const exact = await inProcessIndex(catalog, placements, model, Infinity);
  Math.random = random;
  const select = (index: typeof exact, body: (typeof bodies)[number]['body']) =>
    selectAd(index, body.placement_id, index.placements.get(body.placement_id)!, { query: body.context.query, response: body.context.response, nowMs, evenShare: 1 });
  const figures = { same: 0, exactAds: 0, clusteredAds: 0, exactBySimilarity: 0, found: 0, rows: 0 };
  // Rows a serve compared the conversation with (centres, probed rows, top ranks): the search's work, whatever the machine.
  const matrices = Object.values(clustered.semanticMatrices!);
  const missed: string[] = [];
  const lists = Object.entries(clustered.semanticMatrices!).map(([list, matrix]) => {
    const clusters = matrix.storedClusters(matrix.vectors)?.centres.length;
    return `${list} ${matrix.entries.length} rows, ${clusters === undefined ? 'scanned whole' : `${clusters} clusters`}`;
  });
  console.log(`catalog seed ${seed}, ${LINE_ITEMS} line items: ${lists.join('; ')}`);
  for (const { body } of bodies) {
    const wanted = select(exact, body);
    for (const matrix of matrices) matrix.scannedRows = 0;
    const got = select(clustered, body);
    for (const matrix of matrices) figures.rows += matrix.scannedRows;
    if (key(wanted) === key(got)) figures.same += 1;
    if (wanted) figures.exactAds += 1;
    if (got) figures.clusteredAds += 1;
    if (wanted?.match?.by === 'similarity') {
      figures.exactBySimilarity += 1;
      if (got?.lineItem.id === wanted.lineItem.id) figures.found += 1;
      else missed.push(`${wanted.match.similarity?.toFixed(3)} -> ${got ? `${got.match?.by} ${got.match?.similarity?.toFixed(3) ?? ''}` : 'no ad'}`);
    }
  }
  const timed = (index: typeof exact) => {
    const start = performance.now();
    for (let round = 0; round < ROUNDS; round++) for (const { body } of bodies) select(index, body);
    return (((performance.now() - start) * 1000) / (ROUNDS * bodies.length)).toFixed(1);
  };
  console.log(
    `catalog seed ${seed}: the same ad for ${figures.same} of ${bodies.length} bodies; ads ${figures.exactAds} exhaustive, ${figures.clusteredAds} clustered; ` +
      `of the ${figures.exactBySimilarity} the exhaustive search matched by similarity the clustered found ${figures.found} (recall@1 ${((figures.found / figures.exactBySimilarity) * 100).toFixed(1)} %); ` +
      `rows compared a serve ${(figures.rows / bodies.length).toFixed(1)}; selectAd warm ${timed(clustered)} us clustered, ${timed(exact)} exhaustive`,
  );
  if (missed.length > 0) console.log(`  missed (exhaustive similarity -> clustered's ad): ${missed.join('; ')}`);
  totals.bodies += bodies.length;
  for (const name of ['same', 'exactAds', 'clusteredAds', 'exactBySimilarity', 'found', 'rows'] as const) totals[name] += figures[name];
}
console.log(
  `all: the same ad for ${totals.same} of ${totals.bodies} (${((totals.same / totals.bodies) * 100).toFixed(1)} %); recall@1 of the similarity matches ${totals.found} of ${totals.exactBySimilarity} (${((totals.found / totals.exactBySimilarity) * 100).toFixed(1)} %); rows compared a serve ${(totals.rows / totals.bodies).toFixed(1)}`,
);

import { performance } from 'node:perf_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { selectAd } from '../src/serving/selectAd.js';
import { SemanticModel } from '../src/semantic/semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../src/semantic/wordVectorsFile.js';
import { generateCatalog } from './catalogGenerator.js';
import { seededRandom } from './seededRandom.js';
import { inProcessIndex } from './inProcessIndex.js';
import { optedIn, serveBodies } from './scenarios/serveSemanticScenario.js';

/**
 * The serve-semantic scenario's matching in process: its catalog (10,000 line items, all opted in
 * or none) and its 500 bodies, selectAd only (no HTTP, no token, no answer), alternating the two
 * indexes round by round. Says what the semantic share of a serve costs on that bench, apart from
 * the serving of the extra ads it finds.
 * Usage: npm run build && [EVICT_MB=4] node dist/bench/semanticServeMicroBench.js [rounds]
 */
const LINE_ITEMS = 10_000;
const ROUNDS = Number(process.argv[2] ?? 40);
const placements = Array.from({ length: 40 }, (_, i) => ({ id: randomUUID(), publisher_id: 'p', certification: i < 20 ? 'certified' : 'uncertified' }));
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);

// The index breaks exact ties by Math.random(): seeded here, so that two builds' winners compare.
Math.random = seededRandom(5);
const catalog = generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: placements.map((placement) => placement.id) });
const indexes = { on: await inProcessIndex(optedIn(catalog, 1), placements, model), off: await inProcessIndex(catalog, placements, model) };
const ordinalOf = new Map(catalog.flatMap((campaign) => campaign.lineItems).map((lineItem, ordinal) => [lineItem.id, ordinal]));
// BODIES=serve|evaluation and ONLY=on|off narrow a run, e.g. under --cpu-prof.
// EVICT_MB=n reads n MB of other memory before each selectAd (not timed): in the service, parsing,
// the answer and its write run between two selections and push the word table and the matrix out of
// the core's caches, which a loop of selections alone keeps warm.
const evicted = new Int32Array((Number(process.env.EVICT_MB ?? 0) * 1024 * 1024) / 4);
let evictedSum = 0;
function evictCaches(): void {
  for (let i = 0; i < evicted.length; i += 16) evictedSum += evicted[i]!;
}
const bodies = serveBodies(placements.map((placement) => placement.id)).filter(({ source }) => process.env.BODIES === undefined || source === process.env.BODIES);
const nowMs = Date.now();
const spent = { on: [0, 0], off: [0, 0] };
const fills = { on: [0, 0, 0, 0], off: [0, 0, 0, 0] };
// The winners of the first round, per body: a change that should keep every match keeps this list.
const winners = { on: [] as string[], off: [] as string[] };
for (let round = 0; round < ROUNDS; round++) {
  for (const which of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
    if (process.env.ONLY !== undefined && which !== process.env.ONLY) continue;
    const index = indexes[which];
    for (const { body, source } of bodies) {
      if (evicted.length > 0) evictCaches();
      const start = performance.now();
      const selection = selectAd(index, body.placement_id, index.placements.get(body.placement_id)!, { query: body.context.query, response: body.context.response, nowMs, evenShare: 1 });
      const micros = (performance.now() - start) * 1000;
      if (round === 0) {
        winners[which].push(selection ? String(ordinalOf.get(selection.lineItem.id)) : '-');
        if (selection) fills[which][source === 'serve' ? 0 : 1]! += 1;
        if (selection?.match?.by === 'similarity') fills[which][source === 'serve' ? 2 : 3]! += 1;
        continue;
      }
      spent[which][source === 'serve' ? 0 : 1]! += micros;
    }
  }
}
const perServe = (micros: number) => (micros / ((ROUNDS - 1) * (bodies.length / 2))).toFixed(1);
for (const which of ['on', 'off'] as const) {
  const [serve, evaluation] = spent[which];
  const [serveFills, evaluationFills, serveBySimilarity, evaluationBySimilarity] = fills[which];
  console.log(
    `semantic ${which}: selectAd mean ${perServe((serve! + evaluation!) / 2)} us (serve bodies ${perServe(serve!)}, evaluation ${perServe(evaluation!)}); ` +
      `fill ${serveFills}/${bodies.length / 2} serve, ${evaluationFills}/${bodies.length / 2} evaluation, ${serveBySimilarity} + ${evaluationBySimilarity} by similarity; winners ${createHash('sha256').update(winners[which].join()).digest('hex').slice(0, 12)}`,
  );
}
if (evictedSum !== 0) console.log('(the evicted memory was not zero)');

import { performance } from 'node:perf_hooks';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { creativesOf } from '../src/serving/adIndex.js';
import { selectAd } from '../src/serving/selectAd.js';
import { adResponseJson, signAd } from '../src/serving/adPayload.js';
import { serveRequestBody } from '../src/serving/serveSchemas.js';
import { dailyAllowanceShare } from '../src/serving/spendPacing.js';
import { SemanticModel } from '../src/semantic/semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../src/semantic/wordVectorsFile.js';
import { generateCatalog, generateServeRequests } from './catalogGenerator.js';
import { seededRandom } from './seededRandom.js';
import { inProcessIndex } from './inProcessIndex.js';

/**
 * The serve scenario's work in process, step by step: its catalog (10,000 line items, brand safety
 * on) and its 500 bodies, each serve the steps answerServe runs (the body's JSON parse (fastify's parser adds
 * its prototype-poisoning checks), the compiled schema, selectAd, signing, the answer's JSON), timed per step. No
 * HTTP: what the serve's own code costs, and the answers' hash, so two builds can be compared.
 * Usage: npm run build && node dist/bench/serveMicroBench.js [rounds]
 */
const LINE_ITEMS = 10_000;
const ROUNDS = Number(process.argv[2] ?? 60);
/** Ids the same on every run, so that two builds' winners compare. */
const uuidOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const placements = Array.from({ length: 40 }, (_, i) => ({ id: uuidOf(i), publisher_id: uuidOf(1000), certification: i < 20 ? 'certified' : 'uncertified' }));
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);

// The index breaks exact ties by Math.random(): seeded here, so that two builds' answers compare.
Math.random = seededRandom(5);
const catalog = generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: placements.map((placement) => placement.id) });
const index = await inProcessIndex(catalog, placements, model);
const texts = generateServeRequests(500, placements.map((placement) => placement.id)).map((body) => JSON.stringify(body));
const compiled = z.compile(serveRequestBody);
const signing = { trackingSecret: 'bench-tracking-secret-0123456789abcdef0123456789', trackingBaseUrl: 'http://127.0.0.1:8080', linkTtlSeconds: 86_400, tokenFormat: 2 as const };
const steps = ['parse', 'schema', 'select', 'sign', 'answer'] as const;
const spent = Object.fromEntries(steps.map((step) => [step, 0])) as Record<(typeof steps)[number], number>;
const ordinalOf = new Map(catalog.flatMap((campaign) => campaign.lineItems).map((lineItem, ordinal) => [lineItem.id, ordinal]));
const winners: string[] = [];
let bytes = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const text of texts) {
    const t0 = performance.now();
    const input: unknown = JSON.parse(text);
    const t1 = performance.now();
    const body = compiled.parse(input);
    const placement = index.placements.get(body.placement_id)!;
    const nowMs = Date.now();
    const t2 = performance.now();
    const selection = selectAd(index, body.placement_id, placement, { query: body.context.query, response: body.context.response, nowMs, evenShare: dailyAllowanceShare(nowMs) });
    const t3 = performance.now();
    if (round === 0) winners.push(selection ? `${ordinalOf.get(selection.lineItem.id)}/${creativesOf(selection.lineItem).indexOf(selection.creative)}` : '-');
    if (selection === undefined) {
      if (round > 0) {
        spent.parse += t1 - t0;
        spent.schema += t2 - t1;
        spent.select += t3 - t2;
      }
      continue;
    }
    const ad = signAd(selection, body.placement_id, placement.publisherId, signing, nowMs);
    const t4 = performance.now();
    const answer = adResponseJson(ad, signing.trackingBaseUrl);
    const t5 = performance.now();
    bytes += answer.length;
    if (round === 0) continue;
    spent.parse += t1 - t0;
    spent.schema += t2 - t1;
    spent.select += t3 - t2;
    spent.sign += t4 - t3;
    spent.answer += t5 - t4;
  }
}
const serves = (ROUNDS - 1) * texts.length;
const total = steps.reduce((sum, step) => sum + spent[step], 0);
console.log(
  `per serve (us, over ${serves} serves): ${steps.map((step) => `${step} ${((spent[step] * 1000) / serves).toFixed(2)}`).join(', ')}; total ${((total * 1000) / serves).toFixed(2)}; ` +
    `fill ${winners.filter((winner) => winner !== '-').length}/${texts.length}; winners ${createHash('sha256').update(winners.join()).digest('hex').slice(0, 12)}; ${bytes > 0 ? 'answers written' : ''}`,
);

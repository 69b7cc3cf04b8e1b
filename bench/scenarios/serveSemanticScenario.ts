import { readFileSync } from 'node:fs';
import path from 'node:path';
import { lineItemInput } from '../../src/management/lineItemSchemas.js';
import { packageRoot } from '../../src/packageRoot.js';
import type { Postgres } from '../../src/store/postgres.js';
import type { BenchOptions } from '../benchOptions.js';
import { generateCatalog, generateServeRequests, type GeneratedCampaign, type ServeRequestBody } from '../catalogGenerator.js';
import { seededRandom } from '../seededRandom.js';
import { requestJson } from '../httpJson.js';
import { combineRounds, loadFailures, runLoad, type LoadResult } from '../loadTest.js';
import { progress } from '../progress.js';
import { formatMs, formatNumber, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { prepareService, type ServiceUnderTest } from '../serviceUnderTest.js';

const PLACEMENTS = 40;
const CERTIFIED_PLACEMENTS = 20;
/** Half the serve scenario's bodies, half conversations of the semantic evaluation set. */
const DISTINCT_REQUESTS = 500;
const WARMUP_SECONDS = 3;
/** Rounds per service, in the order A B B A A B ...: neither always runs first. */
const ROUNDS = 4;
/** Issue 18: with semantic matching the serve path keeps at least this share of its throughput. */
const MIN_RATIO = 0.9;

interface ExplainedAnswer {
  ad: unknown;
  match?: { by: string };
}

/**
 * What semantic matching (issue 18) costs the serve path: the serve scenario's catalog on two
 * services, both with word vectors loaded and brand safety on (the production defaults); on one every
 * line item sets targeting.semantic.enabled, on the other none does. Both are up all along and loaded
 * in alternating rounds with the same bodies: half the serve scenario's, half the conversations of
 * the semantic evaluation set (bench/semantic), which mostly miss the catalog's keywords.
 */
export async function serveSemanticScenario(options: BenchOptions): Promise<ScenarioReport> {
  if (options.url) throw new Error('serve-semantic starts two services of its own (with and without opted-in line items): run it without --url');
  const lineItems = options.lineItems ?? 10_000;
  const share = options.semanticShare ?? 1;
  const durationSeconds = options.duration ?? (options.full ? 30 : 10);
  const connections = options.connections ?? 10;
  const failures: string[] = [];
  const seeders = (semantic: boolean) => ({
    stores: async ({ db }: { db: Postgres }): Promise<BenchTenancy> => {
      const tenancy = await seedTenancy(db, PLACEMENTS, CERTIFIED_PLACEMENTS);
      const catalog = generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: tenancy.placements.map((placement) => placement.id) });
      await seedCatalog(db, tenancy.userId, semantic ? optedIn(catalog, share) : catalog, 'active');
      return tenancy;
    },
  });
  const on = await prepareService('serve-semantic', options, seeders(true));
  const off = await prepareService('serve-semantic-off', options, seeders(false));
  // "serve" alone fills equally on both services: the ratio of the matching itself, without the extra ads it serves.
  const bodyKind = options.semanticBodies ?? 'mixed';
  const bodiesOf = (service: ServiceUnderTest<BenchTenancy>) =>
    serveBodies(service.seeded.placements.map((placement) => placement.id)).filter(({ source }) => bodyKind === 'mixed' || source === bodyKind);
  const auth = (service: ServiceUnderTest<BenchTenancy>) => ({ authorization: `Bearer ${service.seeded.publisherToken}` });
  const load = (service: ServiceUnderTest<BenchTenancy>, seconds: number) =>
    runLoad({
      baseUrl: service.baseUrl,
      connections,
      durationSeconds: seconds,
      expectedStatuses: [200],
      requests: bodiesOf(service).map(({ body }) => ({
        method: 'POST' as const,
        path: '/v1/serve',
        headers: { ...auth(service), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })),
    });
  const onRounds: LoadResult[] = [];
  const offRounds: LoadResult[] = [];
  let fillOn: FillSample;
  let fillOff: FillSample;
  try {
    progress('sampling the fill rates');
    fillOn = await sampleFill(on.baseUrl, auth(on), bodiesOf(on));
    fillOff = await sampleFill(off.baseUrl, auth(off), bodiesOf(off));
    failures.push(...fillOn.problems, ...fillOff.problems);
    // The serve bodies use the catalog's keywords: alone (--semantic-bodies serve) they are served the same keyword matches on both.
    if (fillOn.bySimilarity === 0 && bodyKind !== 'serve') failures.push('no ad matched by similarity on the opted-in service: are the word vectors (dist/word-vectors.bin) built?');
    if (fillOff.bySimilarity > 0) failures.push('an ad matched by similarity on the service without opted-in line items');
    await load(on, WARMUP_SECONDS);
    await load(off, WARMUP_SECONDS);
    progress(`${ROUNDS} rounds of ${(durationSeconds / ROUNDS).toFixed(1)} s on each service, alternating`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [on, off] : [off, on];
      for (const service of order) (service === on ? onRounds : offRounds).push(await load(service, durationSeconds / ROUNDS));
    }
  } finally {
    failures.push(...(await on.stop()), ...(await off.stop()));
  }
  const withSemantic = combineRounds(onRounds);
  const without = combineRounds(offRounds);
  failures.push(...loadFailures('service with semantic matching', withSemantic), ...loadFailures('service without semantic matching', without));

  const ratio = withSemantic.requestsPerSecond / without.requestsPerSecond;
  const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
  const figures: Figure[] = [
    {
      figure: 'serve throughput, semantic on / off',
      result: `${formatNumber(withSemantic.requestsPerSecond)} / ${formatNumber(without.requestsPerSecond)} req/s`,
    },
    { figure: 'throughput ratio, on / off', result: `${ratio.toFixed(2)}x`, target: `>= ${MIN_RATIO}x`, met: ratio >= MIN_RATIO },
    {
      figure: 'latency p50 / p99, on / off',
      result: `${formatMs(withSemantic.latency.p50)} / ${formatMs(withSemantic.latency.p99)}; ${formatMs(without.latency.p50)} / ${formatMs(without.latency.p99)}`,
    },
    { figure: `fill rate, on / off (${fillOn.sampled} sampled requests)`, result: `${percent(fillOn.rate)} / ${percent(fillOff.rate)}` },
    { figure: 'fill rate on the serve bodies, on / off', result: `${percent(fillOn.serveRate)} / ${percent(fillOff.serveRate)}` },
    { figure: 'fill rate on the evaluation conversations, on / off', result: `${percent(fillOn.evaluationRate)} / ${percent(fillOff.evaluationRate)}` },
    { figure: 'ads matched by similarity, on', result: `${fillOn.bySimilarity} of ${fillOn.filled}` },
  ];
  const notes = [
    `${formatNumber(lineItems)} active line items (the serve scenario's catalog) on each of two services, ${PLACEMENTS} placements each, both with word vectors loaded and BRAND_SAFETY on (the defaults). On: ${share === 1 ? 'every line item sets' : `${formatNumber(Math.floor(lineItems * share))} line items (${(share * 100).toFixed(0)}%, spread evenly) set`} targeting.semantic.enabled (default min_similarity). Off: the same catalog without it, so matching is by keywords only and the conversation is embedded only when brand safety judges a winner.`,
    `Bodies: ${bodyKind === 'evaluation' ? 'none' : DISTINCT_REQUESTS / 2} of the serve scenario's (90% on-topic chat, 10% small talk) and ${bodyKind === 'serve' ? 'none' : DISTINCT_REQUESTS / 2} of the conversations of bench/semantic/conversations.txt (written without the catalog's keywords in mind, 20 of 300 on sensitive topics), on random placements${bodyKind === 'mixed' ? '' : ` (--semantic-bodies ${bodyKind})`}.`,
    `Load: autocannon, ${connections} keep-alive connections, ${durationSeconds} s on each service in ${ROUNDS} rounds, alternating A B B A ... after a ${WARMUP_SECONDS} s warm-up of each. Rounds, req/s: on ${withSemantic.rounds.map((rps) => formatNumber(rps)).join(', ')}; off ${without.rounds.map((rps) => formatNumber(rps)).join(', ')}.`,
    'Fill rates: one sequential pass over the bodies with explain: true before the load (the load itself sends no explain).',
  ];
  // With --cpu-prof: each service's top self time within its own load rounds.
  for (const [name, service, rounds] of [['on', on, withSemantic], ['off', off, without]] as const) {
    const profile = service.profileSummary(rounds.windows);
    if (profile) notes.push(`CPU profile, ${name}, load rounds only: ${profile}`);
  }
  return { scenario: 'serve-semantic', figures, notes, failures };
}

/** The same campaigns with this share of the line items (spread evenly) opted into semantic matching, as the management API would store them. */
export function optedIn(catalog: GeneratedCampaign[], share: number): GeneratedCampaign[] {
  let ordinal = 0;
  return catalog.map((campaign) => ({
    ...campaign,
    lineItems: campaign.lineItems.map((lineItem) => {
      ordinal += 1;
      if (Math.floor(ordinal * share) === Math.floor((ordinal - 1) * share)) return lineItem;
      const input = { ...lineItem.input, targeting: { ...(lineItem.input.targeting as object), semantic: { enabled: true } } };
      return { ...lineItem, input, stored: lineItemInput.parse(input) };
    }),
  }));
}

type Source = 'serve' | 'evaluation';

/** The serve scenario's bodies (first half) and evaluation conversations (second half), each on a random placement. */
export function serveBodies(placements: readonly string[]): { body: ServeRequestBody; source: Source }[] {
  const serve = generateServeRequests(DISTINCT_REQUESTS / 2, placements).map((body) => ({ body, source: 'serve' as const }));
  const random = seededRandom(13);
  const conversations = evaluationConversations();
  const evaluation = Array.from({ length: DISTINCT_REQUESTS / 2 }, (_, index) => {
    const [query, response] = conversations[Math.floor((index * conversations.length) / (DISTINCT_REQUESTS / 2))]!;
    return { body: { placement_id: placements[Math.floor(random() * placements.length)]!, context: { query, response } }, source: 'evaluation' as const };
  });
  return [...serve, ...evaluation];
}

function evaluationConversations(): [string, string][] {
  return readFileSync(path.join(packageRoot, 'bench', 'semantic', 'conversations.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const [, query, response] = line.split(' | ');
      return [query!, response!];
    });
}

interface FillSample {
  sampled: number;
  filled: number;
  rate: number;
  serveRate: number;
  evaluationRate: number;
  bySimilarity: number;
  problems: string[];
}

/** One sequential pass with explain: true: how many answers carry an ad, per kind of body, and how many matched by similarity. */
async function sampleFill(baseUrl: string, auth: Record<string, string>, bodies: { body: ServeRequestBody; source: Source }[]): Promise<FillSample> {
  const problems: string[] = [];
  const tally = { serve: [0, 0], evaluation: [0, 0] };
  let bySimilarity = 0;
  for (const { body, source } of bodies) {
    const answer = await requestJson<ExplainedAnswer>('POST', `${baseUrl}/v1/serve`, { headers: auth, body: { ...body, explain: true } });
    if (answer.status !== 200) {
      problems.push(`POST /v1/serve answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      break;
    }
    tally[source][1]! += 1;
    if (!answer.body.ad) continue;
    tally[source][0]! += 1;
    if (answer.body.match?.by === 'similarity') bySimilarity += 1;
  }
  const share = ([filled, total]: number[]) => (total! > 0 ? filled! / total! : 0);
  const filled = tally.serve[0]! + tally.evaluation[0]!;
  const sampled = tally.serve[1]! + tally.evaluation[1]!;
  return { sampled, filled, rate: share([filled, sampled]), serveRate: share(tally.serve), evaluationRate: share(tally.evaluation), bySimilarity, problems };
}

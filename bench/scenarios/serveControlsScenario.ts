import { readFileSync } from 'node:fs';
import type { BenchOptions } from '../benchOptions.js';
import { generateCatalog, generateServeRequests, type GeneratedCampaign, type ServeRequestBody } from '../catalogGenerator.js';
import { controlShares } from '../deliveryControls.js';
import { requestJson } from '../httpJson.js';
import { combineRounds, loadFailures, runLoad, type LoadResult } from '../loadTest.js';
import { progress } from '../progress.js';
import { formatMs, formatNumber, ratio, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedFrequencyCounts, type UsersAtCap } from '../seedFrequencyCounts.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { BENCH_TRACKING_SECRET, startStub } from '../serviceProcess.js';
import { prepareService, type ServiceUnderTest } from '../serviceUnderTest.js';
import { servingCountries, servingUsers, type ServingUser } from '../trafficMix.js';
import { verifyTrackingToken } from '../../src/tracking/trackingToken.js';
import { IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import type { LineItemInput } from '../../src/management/lineItemSchemas.js';

const PLACEMENTS = 40;
const CERTIFIED_PLACEMENTS = 20;
const DISTINCT_REQUESTS = 500;
/** Distinct end users (user.id and user.ip) the request bodies take turns with. */
const USERS = 300;
const WARMUP_SECONDS = 3;
/** Rounds per target; each round runs the three in an order that rotates, so none always goes first. */
const ROUNDS = 4;
/** Issue 14: serving with every control keeps at least this share of the throughput without them. */
const MIN_RATIO = 0.9;
/** A controls mix that serves far less would make a cheap serve look fast: it must fill nearly as often. */
const MIN_FILL_RATIO = 0.9;

interface ControlsSeed extends BenchTenancy {
  catalog: GeneratedCampaign[];
  atCap: UsersAtCap;
}

/**
 * What issue 14's delivery controls cost the serve path: two services with the serve scenario's
 * catalog (same size, same keywords, bids and creatives), one where every campaign has a flight and
 * the line items mix lifetime budgets, even and asap pacing, frequency caps (some users already at
 * them), country lists and dayparts (bench/deliveryControls.ts), one without any; and the fastify
 * stub. Both services get the same request bodies, each with a user.id and a consumer user.ip.
 * All three are up all along and loaded in rotating rounds. Before the load, one sequential pass
 * over the bodies gives each service's fill rate and checks that every ad the controls service
 * chose respects its line item's country list, daypart and frequency cap.
 */
export async function serveControlsScenario(options: BenchOptions): Promise<ScenarioReport> {
  if (options.url) throw new Error('serve-controls starts two services of its own (with and without controls): run it without --url');
  const lineItems = options.lineItems ?? 10_000;
  const durationSeconds = options.duration ?? (options.full ? 30 : 10);
  const connections = options.connections ?? 10;
  const failures: string[] = [];
  const nowMs = Date.now();
  const users = servingUsers(USERS);

  const withControls = await prepareService('serve-controls', options, {
    stores: async ({ db, ch }): Promise<ControlsSeed> => {
      const tenancy = await seedTenancy(db, PLACEMENTS, CERTIFIED_PLACEMENTS);
      const catalog = generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: tenancy.placements.map((p) => p.id), controls: { nowMs } });
      await seedCatalog(db, tenancy.userId, catalog, 'active');
      return { ...tenancy, catalog, atCap: await seedFrequencyCounts(ch, catalog, tenancy.publisherId, users, nowMs) };
    },
  });
  const without = await prepareService('serve-controls-off', options, {
    stores: async ({ db }): Promise<BenchTenancy> => {
      const tenancy = await seedTenancy(db, PLACEMENTS, CERTIFIED_PLACEMENTS);
      await seedCatalog(db, tenancy.userId, generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: tenancy.placements.map((p) => p.id) }), 'active');
      return tenancy;
    },
  });
  const stub = await startStub('serve');
  const bodiesOf = (service: ServiceUnderTest<BenchTenancy>) => servingBodies(service.seeded.placements.map((placement) => placement.id), users);
  const requestsOf = (service: ServiceUnderTest<BenchTenancy>) =>
    bodiesOf(service).map((body) => ({
      method: 'POST' as const,
      path: '/v1/serve',
      headers: { authorization: `Bearer ${service.seeded.publisherToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }));
  const targets = [
    { name: 'controls', baseUrl: withControls.baseUrl, pid: withControls.pid, cpuSeconds: 0, requests: requestsOf(withControls), results: [] as LoadResult[] },
    { name: 'no controls', baseUrl: without.baseUrl, pid: without.pid, cpuSeconds: 0, requests: requestsOf(without), results: [] as LoadResult[] },
    // The stub parses the body and answers a fixed ad: any of the bodies will do.
    { name: 'stub', baseUrl: stub.baseUrl, pid: undefined, cpuSeconds: 0, requests: requestsOf(without), results: [] as LoadResult[] },
  ];
  const load = (target: (typeof targets)[number], seconds: number) =>
    runLoad({ baseUrl: target.baseUrl, connections, durationSeconds: seconds, requests: target.requests, expectedStatuses: [200] });
  const measuredRound = async (target: (typeof targets)[number]) => {
    const before = processCpuSeconds(target.pid);
    target.results.push(await load(target, durationSeconds / ROUNDS));
    target.cpuSeconds += processCpuSeconds(target.pid) - before;
  };
  let controlsFill: FillPass;
  let plainFill: FillPass;
  try {
    progress('sampling the fill rate of both services');
    controlsFill = await fillPass(withControls, bodiesOf(withControls), withControls.seeded, users);
    plainFill = await fillPass(without, bodiesOf(without));
    failures.push(...controlsFill.problems, ...plainFill.problems);
    for (const target of targets) await load(target, WARMUP_SECONDS);
    progress(`${ROUNDS} rounds of ${(durationSeconds / ROUNDS).toFixed(1)} s on each service and the stub, in rotating order`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...targets.slice(round % targets.length), ...targets.slice(0, round % targets.length)];
      for (const target of round % 2 === 0 ? order : order.reverse()) await measuredRound(target);
    }
  } finally {
    failures.push(...(await withControls.stop()), ...(await without.stop()));
    await stub.stop();
  }
  const cpuPerThousand = (target: (typeof targets)[number], result: LoadResult) => (target.cpuSeconds * 1e6) / result.responses;
  const [controls, plain, stubbed] = targets.map((target) => combineRounds(target.results)) as [LoadResult, LoadResult, LoadResult];
  failures.push(...loadFailures('service with controls', controls), ...loadFailures('service without controls', plain));
  if (controlsFill.filled === 0) failures.push('the service with controls served no ad in the fill pass');

  const throughputRatio = controls.requestsPerSecond / plain.requestsPerSecond;
  const fillRatio = controlsFill.filled / Math.max(1, plainFill.filled);
  const figures: Figure[] = [
    {
      figure: 'serve throughput, controls / no controls',
      result: `${formatNumber(controls.requestsPerSecond)} / ${formatNumber(plain.requestsPerSecond)} req/s`,
      baseline: `${formatNumber(stubbed.requestsPerSecond)} req/s`,
      ratio: `${ratio(controls.requestsPerSecond, stubbed.requestsPerSecond)} / ${ratio(plain.requestsPerSecond, stubbed.requestsPerSecond)}`,
    },
    {
      figure: 'throughput with controls / without',
      result: `${throughputRatio.toFixed(2)}x`,
      target: `>= ${MIN_RATIO}x`,
      met: throughputRatio >= MIN_RATIO,
    },
    {
      figure: 'latency p50 / p99, controls; no controls',
      result: `${formatMs(controls.latency.p50)} / ${formatMs(controls.latency.p99)}; ${formatMs(plain.latency.p50)} / ${formatMs(plain.latency.p99)}`,
      baseline: `${formatMs(stubbed.latency.p50)} / ${formatMs(stubbed.latency.p99)}`,
    },
    {
      figure: 'service CPU per 1,000 serves (user + system, all threads), controls / no controls',
      result: `${formatMs(cpuPerThousand(targets[0]!, controls))} / ${formatMs(cpuPerThousand(targets[1]!, plain))}`,
    },
    {
      figure: `fill rate, controls / no controls (${DISTINCT_REQUESTS} sampled requests each)`,
      result: `${percent(controlsFill.filled / DISTINCT_REQUESTS)} / ${percent(plainFill.filled / DISTINCT_REQUESTS)}`,
      target: `controls >= ${MIN_FILL_RATIO}x of no controls`,
      met: fillRatio >= MIN_FILL_RATIO,
      baseline: '100% (fixed ad)',
    },
    {
      figure: 'ads served by line items with a cap / country list / daypart / lifetime budget / even pacing',
      result: [controlsFill.servedBy.cap, controlsFill.servedBy.countries, controlsFill.servedBy.dayparts, controlsFill.servedBy.lifetime, controlsFill.servedBy.even]
        .map((count) => percent(count / Math.max(1, controlsFill.filled)))
        .join(' / '),
    },
    {
      figure: 'ads that broke their line item\'s country list, daypart or cap',
      result: formatNumber(controlsFill.violations),
      target: '0',
      met: controlsFill.violations === 0,
    },
  ];
  const shares = Object.entries(servingCountries)
    .map(([country, share]) => `${country} ${Math.round(share * 100)}%`)
    .join(', ');
  const notes = [
    `${formatNumber(lineItems)} active line items in ${formatNumber(lineItems / 5)} campaigns on each service, the serve scenario's catalog (same keywords, bids, creatives; ${PLACEMENTS} placements, ${CERTIFIED_PLACEMENTS} certified). With controls: every campaign has a flight that started 1-30 days ago and ends in 7-60 days (${percent(controlShares.openEndedFlight)} never); line items have a lifetime budget of a year of their daily budget (${percent(controlShares.lifetimeBudget)}), even pacing (${percent(controlShares.evenPacing)}, asap the rest), a frequency cap per hour/day/week/lifetime (${percent(controlShares.frequencyCap)}), a country include list (${percent(controlShares.countriesInclude)}) or exclude list (${percent(controlShares.countriesExclude)}), and dayparts in one of six IANA zones (${percent(controlShares.dayparts)}; ${percent(controlShares.daypartsOutsideRun)} of them with windows away from the run's local time, which serve nothing).`,
    `Requests: the serve scenario's ${DISTINCT_REQUESTS} bodies, each with user.id and user.ip of one of ${USERS} users on consumer ISP addresses (${shares}), sent to both services. Frequency counts seeded in frequency_hours_v1 before the start: for each capped line item, 10% of the users at the cap and 20% part-way (the service reads them at start; no pixels fire during the run).`,
    `Load: autocannon, ${connections} keep-alive connections, ${durationSeconds} s on each service and the stub in ${ROUNDS} rounds (order rotating and reversing each round) after a ${WARMUP_SECONDS} s warm-up of each. Rounds, req/s: controls ${controls.rounds.map((rps) => formatNumber(rps)).join(', ')}; no controls ${plain.rounds.map((rps) => formatNumber(rps)).join(', ')}; stub ${stubbed.rounds.map((rps) => formatNumber(rps)).join(', ')}.`,
    'CPU per 1,000 serves: utime + stime of the service process (every thread, ClickHouse\'s included) from /proc over its measured rounds, divided by its answers. Fill: one sequential pass over the bodies before the load; each ad of the controls service is read back from its tracking token (line item) and checked against the user\'s country, the daypart windows at serve time and the seeded caps.',
  ];
  for (const [name, service] of [['controls', withControls], ['no controls', without]] as const) {
    const profile = service.profileSummary();
    if (profile) notes.push(`CPU profile, ${name} (top self time): ${profile}`);
  }
  return { scenario: 'serve-controls', baselineName: 'fastify stub', figures, notes, failures };
}

/** The serve scenario's bodies, each with one of the users: the same bodies for both services but for the placement ids. */
function servingBodies(placements: readonly string[], users: readonly ServingUser[]): ServeRequestBody[] {
  return generateServeRequests(DISTINCT_REQUESTS, placements).map((body, index) => {
    const user = users[index % users.length]!;
    return { ...body, user: { id: user.id, ip: user.ip } };
  });
}

interface FillPass {
  filled: number;
  servedBy: { cap: number; countries: number; dayparts: number; lifetime: number; even: number };
  violations: number;
  problems: string[];
}

/** Sends each body once; with a seed, reads each ad's line item from its token and checks its controls held. */
async function fillPass(service: ServiceUnderTest<BenchTenancy>, bodies: readonly ServeRequestBody[], seed?: ControlsSeed, users?: readonly ServingUser[]): Promise<FillPass> {
  const pass: FillPass = { filled: 0, servedBy: { cap: 0, countries: 0, dayparts: 0, lifetime: 0, even: 0 }, violations: 0, problems: [] };
  const lineItems = new Map(seed?.catalog.flatMap((campaign) => campaign.lineItems.map((item) => [item.id, item.stored] as const)));
  const countryOf = new Map(users?.map((user) => [user.id, user.country]));
  for (const body of bodies) {
    const answer = await requestJson<{ ad: null | { tracking: { impression_url: string } } }>('POST', `${service.baseUrl}/v1/serve`, {
      headers: { authorization: `Bearer ${service.seeded.publisherToken}` },
      body,
    });
    if (answer.status !== 200) {
      pass.problems.push(`POST /v1/serve answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      break;
    }
    if (!answer.body.ad) continue;
    pass.filled += 1;
    if (!seed) continue;
    const link = answer.body.ad.tracking.impression_url;
    const verdict = verifyTrackingToken(link.slice(link.indexOf(IMPRESSION_PATH) + IMPRESSION_PATH.length), BENCH_TRACKING_SECRET);
    const stored = verdict.valid ? lineItems.get(verdict.claims.l) : undefined;
    if (!verdict.valid || !stored) {
      pass.problems.push(`an ad's token does not name a seeded line item: ${link}`);
      break;
    }
    const user = body.user!;
    const broken = brokenControl(stored, countryOf.get(user.id)!, seed.atCap.has(`${verdict.claims.l} ${user.id}`), verdict.claims.t);
    if (broken) {
      pass.violations += 1;
      if (pass.violations <= 3) pass.problems.push(`line item ${verdict.claims.l} was served against its ${broken}`);
    }
    const { servedBy } = pass;
    if (stored.frequency_cap) servedBy.cap += 1;
    if (stored.targeting?.countries) servedBy.countries += 1;
    if (stored.targeting?.dayparts) servedBy.dayparts += 1;
    if (stored.budget?.lifetime !== undefined) servedBy.lifetime += 1;
    if (stored.budget?.pacing === 'even') servedBy.even += 1;
  }
  return pass;
}

/** Which control, if any, the serve broke: judged here independently of the service's code. */
function brokenControl(lineItem: LineItemInput, country: string, userAtCap: boolean, servedAtMs: number): string | undefined {
  const countries = lineItem.targeting?.countries;
  if (countries?.include && countries.include.length > 0 && !countries.include.includes(country)) return `country include list (${country})`;
  if (countries?.exclude?.includes(country)) return `country exclude list (${country})`;
  if (lineItem.frequency_cap && userAtCap) return 'frequency cap';
  const dayparts = lineItem.targeting?.dayparts;
  if (dayparts && !inWindows(dayparts, servedAtMs)) return `dayparts (${dayparts.timezone})`;
  return undefined;
}

function inWindows(dayparts: NonNullable<NonNullable<LineItemInput['targeting']>['dayparts']>, atMs: number): boolean {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: dayparts.timezone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(atMs);
  const part = (type: string) => parts.find((entry) => entry.type === type)!.value;
  const day = part('weekday').toLowerCase();
  const minute = Number(part('hour')) * 60 + Number(part('minute'));
  const hhmm = (text: string) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5));
  return dayparts.windows.some((window) => (window.days as string[]).includes(day) && minute >= hhmm(window.start) && minute < hhmm(window.end));
}

/** CPU time a process has used so far, every thread, from /proc (0 where there is no /proc or no pid). */
function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** USER_HZ: the unit of /proc's times, 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

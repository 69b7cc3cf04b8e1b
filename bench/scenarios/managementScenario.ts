import type { BenchOptions } from '../benchOptions.js';
import { generateCatalog, type GeneratedCampaign } from '../catalogGenerator.js';
import { requestJson } from '../httpJson.js';
import { timeSequential, type LatencySummary } from '../latencyStats.js';
import { loadFailures, runLoad } from '../loadTest.js';
import { formatMs, formatNumber, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedCatalogOverHttp, seedTenancyOverHttp } from '../seedOverHttp.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { prepareService } from '../serviceUnderTest.js';
import { progress } from '../progress.js';

const CAMPAIGNS = 10_000;
const LIST_PAGE = 100;

interface ManagementSeed {
  tenancy: BenchTenancy;
  catalog: GeneratedCampaign[];
}

/**
 * Management latency with 10,000 campaigns (each with a line item and creatives) in one
 * organization: create, get and list pages of 100 (by offset and by cursor), one request at a time
 * (the latency a client sees), then gets under concurrent load.
 */
export async function managementScenario(options: BenchOptions): Promise<ScenarioReport> {
  const requests = options.full ? 2_000 : 500;
  const durationSeconds = options.duration ?? (options.full ? 30 : 10);
  const connections = options.connections ?? 10;
  const failures: string[] = [];
  const generate = () => generateCatalog({ lineItems: CAMPAIGNS, lineItemsPerCampaign: 1, placements: [] });
  const service = await prepareService('management', options, {
    stores: async ({ db }): Promise<ManagementSeed> => {
      const tenancy = await seedTenancy(db, 0, 0);
      const catalog = generate();
      await seedCatalog(db, tenancy.userId, catalog, 'paused');
      return { tenancy, catalog };
    },
    http: async (baseUrl, adminToken): Promise<ManagementSeed> => {
      const tenancy = await seedTenancyOverHttp(baseUrl, adminToken, 0, 0);
      const catalog = generate();
      await seedCatalogOverHttp(baseUrl, tenancy, catalog, 'paused');
      return { tenancy, catalog };
    },
  });
  const { tenancy, catalog } = service.seeded;
  const headers = { 'x-api-key': tenancy.apiKey };
  const api = `${service.baseUrl}/v1/advertiser`;
  const expect = async (status: number, call: Promise<{ status: number; body: unknown }>, what: string) => {
    const answer = await call;
    if (answer.status !== status) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  };
  let create: LatencySummary;
  let get: LatencySummary;
  let list: LatencySummary;
  let listByCursor: LatencySummary;
  let underLoad: Awaited<ReturnType<typeof runLoad>>;
  try {
    progress(`timing ${requests} creates, gets, lists by offset and lists by cursor`);
    create = await timeSequential(requests, 20, (index) =>
      expect(
        201,
        requestJson('POST', `${api}/campaigns`, {
          headers,
          body: { name: `bench campaign ${index}`, brand_name: 'Northfold Outdoor', user_id: tenancy.userId, objective: 'brand_awareness' },
        }),
        'POST /campaigns',
      ),
    );
    get = await timeSequential(requests, 20, (index) =>
      expect(200, requestJson('GET', `${api}/campaigns/${catalog[(index * 7919) % catalog.length]!.id}`, { headers }), 'GET /campaigns/:id'),
    );
    list = await timeSequential(requests, 20, (index) =>
      expect(
        200,
        requestJson('GET', `${api}/campaigns?limit=${LIST_PAGE}&offset=${(index % (CAMPAIGNS / LIST_PAGE)) * LIST_PAGE}`, { headers }),
        'GET /campaigns?limit=100',
      ),
    );
    // The same pages by cursor: each request continues from the next_cursor of the one before, so
    // the walk covers every depth (back to the first page after the last).
    let cursor: string | null = null;
    listByCursor = await timeSequential(requests, 20, async () => {
      const answer = await requestJson<{ pagination: { next_cursor: string | null } }>(
        'GET',
        `${api}/campaigns?limit=${LIST_PAGE}${cursor ? `&cursor=${cursor}` : ''}`,
        { headers },
      );
      if (answer.status !== 200) throw new Error(`GET /campaigns?cursor answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      cursor = answer.body.pagination.next_cursor;
    });
    progress(`gets under load: ${connections} connections for ${durationSeconds} s`);
    underLoad = await runLoad({
      baseUrl: service.baseUrl,
      connections,
      durationSeconds,
      requests: catalog.slice(0, 1000).map((campaign) => ({ method: 'GET' as const, path: `/v1/advertiser/campaigns/${campaign.id}`, headers })),
      expectedStatuses: [200],
    });
    failures.push(...loadFailures('GET /campaigns/:id under load', underLoad));
  } catch (error) {
    failures.push((error as Error).message);
    await service.stop();
    return { scenario: 'management', figures: [], notes: [], failures };
  }
  failures.push(...(await service.stop()));
  const profile = service.profileSummary();

  const row = (name: string, latency: LatencySummary): Figure => ({
    figure: `${name}: p50 / p99`,
    result: `${formatMs(latency.p50)} / ${formatMs(latency.p99)}`,
    target: 'p99 < 10 ms',
    met: latency.p99 < 10,
  });
  const figures: Figure[] = [
    row('POST /campaigns (create)', create),
    row('GET /campaigns/:id', get),
    row(`GET /campaigns?limit=${LIST_PAGE} (offsets 0..9,900)`, list),
    row(`GET /campaigns?limit=${LIST_PAGE}&cursor= (every page in turn)`, listByCursor),
    {
      figure: `GET /campaigns/:id under load (${connections} connections)`,
      result: `${formatNumber(underLoad.requestsPerSecond)} req/s, p50 ${formatMs(underLoad.latency.p50)}, p99 ${formatMs(underLoad.latency.p99)}`,
    },
  ];
  const notes = [
    `${formatNumber(CAMPAIGNS)} campaigns (each with one line item and 1-2 creatives) in one organization, ${options.url ? 'created through the management API' : 'seeded by bulk SQL before the service started'}; the key has both permissions.`,
    `Latency rows: ${formatNumber(requests)} sequential requests each over one keep-alive connection, after 20 warm-up requests. Load row: autocannon, ${durationSeconds} s.`,
  ];
  if (profile) notes.push(`CPU profile of the service (top self time): ${profile}`);
  return { scenario: 'management', figures, notes, failures };
}

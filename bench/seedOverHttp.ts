import { randomBytes } from 'node:crypto';
import type { GeneratedCampaign } from './catalogGenerator.js';
import { requestJson } from './httpJson.js';
import type { BenchPlacement, BenchTenancy } from './seedTenancy.js';

/** Parallel management calls while seeding a running service; its database serializes them anyway. */
const CONCURRENCY = 8;

async function expectCreated<Data>(what: string, call: Promise<{ status: number; body: unknown }>): Promise<Data> {
  const answer = await call;
  if (answer.status !== 200 && answer.status !== 201) {
    throw new Error(`seeding: ${what} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
  return (answer.body as { data: Data }).data;
}

/**
 * What this run seeded into a running service (--url), so `undoHttpSeeds` can take it out of
 * serving when the run ends: the campaigns it made (recorded as each is created, so a seed cut short
 * is undone too), the API key that made them and the bench publisher's token.
 */
interface HttpSeed {
  baseUrl: string;
  adminToken: string;
  apiKey: string;
  apiKeyId: string;
  publisherTokenId: string;
  campaignIds: string[];
}
const httpSeeds = new Map<string, HttpSeed>();

/** The same tenancy as seedTenancy, through the admin API of the service at baseUrl. */
export async function seedTenancyOverHttp(baseUrl: string, adminToken: string, placements: number, certified: number): Promise<BenchTenancy> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const post = <Data>(path: string, body: unknown) => expectCreated<Data>(`POST ${path}`, requestJson('POST', baseUrl + path, { headers: admin, body }));
  const runId = randomBytes(4).toString('hex');
  const organization = await post<{ id: string }>('/v1/admin/organizations', { name: `bench ${runId}` });
  const user = await post<{ id: string }>(`/v1/admin/organizations/${organization.id}/users`, { email: `bench-${runId}@example.com` });
  const key = await post<{ id: string; key: string }>(`/v1/admin/organizations/${organization.id}/api-keys`, { permissions: ['campaigns', 'reporting'] });
  const publisher = await post<{ id: string; token: string; token_id: string }>('/v1/admin/publishers', { name: `bench publisher ${runId}` });
  httpSeeds.set(runId, { baseUrl, adminToken, apiKey: key.key, apiKeyId: key.id, publisherTokenId: publisher.token_id, campaignIds: [] });
  const made: BenchPlacement[] = [];
  for (let index = 0; index < placements; index++) {
    const id = `bench-${runId}-chat-${String(index).padStart(3, '0')}`;
    await post(`/v1/admin/publishers/${publisher.id}/placements`, { id, name: `bench chat surface ${index}` });
    if (index < certified) await post(`/v1/admin/placements/${id}/certify`, { reason: 'integration review approved (bench seed)' });
    made.push({ id, certified: index < certified });
  }
  return {
    runId,
    organizationId: organization.id,
    userId: user.id,
    apiKey: key.key,
    publisherId: publisher.id,
    publisherToken: publisher.token,
    placements: made,
  };
}

/**
 * The generated catalog through the management API: create each campaign, add its line items
 * (targeting and creatives in the same body), activate it when asked. The ids the service assigns
 * replace the generated ones in `catalog`, so later steps (tracking tokens) name real rows. On a
 * service with real publishers, every line item targets only the bench's own placements (those its
 * generated targeting allows of them), so a bench ad is never served to anyone else's readers.
 */
export async function seedCatalogOverHttp(
  baseUrl: string,
  tenancy: BenchTenancy,
  catalog: GeneratedCampaign[],
  status: 'active' | 'paused',
): Promise<void> {
  const headers = { 'x-api-key': tenancy.apiKey };
  const post = <Data>(path: string, body: unknown) => expectCreated<Data>(`POST ${path}`, requestJson('POST', baseUrl + path, { headers, body }));
  const benchPlacements = tenancy.placements.map((placement) => placement.id);
  let next = 0;
  const worker = async () => {
    while (next < catalog.length) {
      const campaign = catalog[next++]!;
      const created = await post<{ id: string }>('/v1/advertiser/campaigns', { ...campaign.input, user_id: tenancy.userId });
      httpSeeds.get(tenancy.runId)?.campaignIds.push(created.id);
      campaign.id = created.id;
      for (const lineItem of campaign.lineItems) {
        const targeting = onlyOn(benchPlacements, lineItem.input.targeting as Targeting | undefined);
        const made = await post<{ id: string; creatives: Array<{ id: string }> }>(`/v1/advertiser/campaigns/${created.id}/line-items`, { ...lineItem.input, targeting });
        lineItem.id = made.id;
        lineItem.creativeIds = made.creatives.map((creative) => creative.id);
      }
      if (status === 'active' && campaign.lineItems.length > 0) await post(`/v1/advertiser/campaigns/${created.id}/activate`, {});
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

interface Targeting {
  placements?: { include?: string[]; exclude?: string[] };
  [other: string]: unknown;
}

/** The targeting narrowed to the bench's placements: its include list as it is, else the bench's minus its excludes. */
function onlyOn(benchPlacements: string[], targeting: Targeting = {}): Targeting {
  // No placements (the management scenario): its campaigns stay paused, never served.
  if (benchPlacements.length === 0 || targeting.placements?.include?.length) return targeting;
  const excluded = new Set(targeting.placements?.exclude ?? []);
  return { ...targeting, placements: { include: benchPlacements.filter((id) => !excluded.has(id)) } };
}

/**
 * Takes what this run seeded out of the running service: deletes every campaign it made (none of
 * its ads is served again), then revokes its API key and its publisher's token. The organization,
 * the publisher and its placements stay (the admin API deletes neither), with the events the run
 * stored. Called when a --url run ends, fails or is interrupted; a failure is reported, not thrown.
 */
export async function undoHttpSeeds(): Promise<string[]> {
  const problems: string[] = [];
  const expect = async (what: string, call: Promise<{ status: number; body: unknown }>) => {
    const answer = await call.catch((error: unknown) => ({ status: 0, body: (error as Error).message }));
    // 404: already gone (a retried cleanup).
    if (answer.status !== 204 && answer.status !== 404) problems.push(`cleanup: ${what} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
  };
  for (const [runId, seed] of httpSeeds) {
    httpSeeds.delete(runId);
    const headers = { 'x-api-key': seed.apiKey };
    const campaigns = [...seed.campaignIds];
    const worker = async () => {
      for (let id = campaigns.pop(); id !== undefined; id = campaigns.pop()) {
        await expect(`DELETE campaign ${id}`, requestJson('DELETE', `${seed.baseUrl}/v1/advertiser/campaigns/${id}`, { headers }));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const admin = { authorization: `Bearer ${seed.adminToken}` };
    await expect('revoking the bench API key', requestJson('DELETE', `${seed.baseUrl}/v1/admin/api-keys/${seed.apiKeyId}`, { headers: admin }));
    await expect('revoking the bench publisher token', requestJson('DELETE', `${seed.baseUrl}/v1/admin/publisher-tokens/${seed.publisherTokenId}`, { headers: admin }));
  }
  return problems;
}
